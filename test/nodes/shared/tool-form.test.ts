/**
 * The nodes as an AI agent's tools (n8n's tool form: the node type name with "Tool" appended, which
 * n8n's `@tool` display condition reads): no tool hands a model a token, and a destructive operation
 * tells the author so in the editor.
 */
import type { INode, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SiteAdmin } from '../../../nodes/SiteAdmin/SiteAdmin.node';
import { SiteTenant } from '../../../nodes/SiteTenant/SiteTenant.node';
import { useNodeTestContext } from '../../harness/nodes';

/** The node type as n8n registers its tool form (the description's name ends in "Tool"). */
function toolForm(nodeType: INodeType): INodeType {
	const tool = Object.create(nodeType) as INodeType;
	tool.description = { ...nodeType.description, name: `${nodeType.description.name}Tool` };
	return tool;
}

const ctx = useNodeTestContext({}, { siteAdminTool: toolForm(new SiteAdmin()) });

/** The parameters the editor shows for these values, with the options each offers. */
function shown(nodeType: INodeType, parameters: INodeParameters): INodeProperties[] {
	const node = {
		name: 'node',
		type: nodeType.description.name,
		typeVersion: 1,
		parameters,
	} as unknown as INode;
	return nodeType.description.properties.filter((property) =>
		NodeHelpers.displayParameter(parameters, property, node, nodeType.description),
	);
}

const optionValues = (property: INodeProperties | undefined) =>
	(property?.options ?? []).map((option) => (option as { value: string }).value);

test('the Admin node offers Token only outside its tool form', () => {
	const admin = new SiteAdmin();
	const parameters = { resource: 'tenant', operation: 'create' };
	const asNode = shown(admin, parameters).find((property) => property.name === 'resource');
	const asTool = shown(toolForm(admin), parameters).find(
		(property) => property.name === 'resource',
	);
	expect(optionValues(asNode)).toEqual(['tenant', 'token']);
	expect(optionValues(asTool)).toEqual(['tenant']);
});

test('a tool saved with Token > Issue fails before any request and returns no token', async () => {
	const before = ctx.site.tokensIssued('tool-tenant');
	await ctx.site.createTenant('tool-tenant');
	const result = await ctx.runner.runNode({
		type: 'siteAdminTool',
		credentials: ctx.adminCredential,
		parameters: { resource: 'token', operation: 'issue', id: 'tool-tenant' },
	});
	expect(result.items).toHaveLength(0);
	expect(result.error?.message).toMatch(/not available to an AI agent/);
	// Only the token createTenant issued: the tool issued none.
	expect(ctx.site.tokensIssued('tool-tenant')).toBe(before + 1);
});

test.each([
	[new SiteAdmin(), { resource: 'tenant', operation: 'delete' }, /delete a tenant/],
	[new SiteTenant(), { resource: 'page', operation: 'delete' }, /delete a page/],
	[new SiteTenant(), { resource: 'variable', operation: 'delete' }, /delete a variable/],
])(
	'%#: a delete operation says in the tool form that the model picks what goes',
	(node, parameters, text) => {
		const notice = (form: INodeType) =>
			shown(form, parameters).filter(
				(property) => property.type === 'notice' && text.test(property.displayName),
			);
		expect(notice(toolForm(node))).toHaveLength(1);
		expect(notice(node)).toHaveLength(0);
		// Other operations show no such notice.
		expect(
			shown(toolForm(node), { ...parameters, operation: 'get' }).filter((property) =>
				/As a tool/.test(property.displayName),
			),
		).toHaveLength(0);
	},
);
