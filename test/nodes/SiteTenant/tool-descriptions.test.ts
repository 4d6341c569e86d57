/**
 * What a model reads about each tool of the Tenant node: every operation's tool form has its own
 * description, write operations say they change the live site (and what they need), read operations
 * say they are safe; and n8n itself hands that text to the model (its own automatic description
 * would be the action name).
 */
import type { INode, INodeProperties, INodeType, INodeTypes } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { SiteTenant } from '../../../nodes/SiteTenant/SiteTenant.node';
import { TOOL_DESCRIPTIONS } from '../../../nodes/SiteTenant/toolDescriptions';

const tenant = new SiteTenant();
const tool: INodeType = Object.create(tenant) as INodeType;
tool.description = { ...tenant.description, name: 'siteTenantTool' };

const READ_ONLY = [
	'ai.getPageContext',
	'page.get',
	'page.getAll',
	'sitemap.get',
	'variable.get',
	'variable.getAll',
];
const NEITHER = ['notification.send', 'customApiCall.call'];

/**
 * Every resource.operation the node offers as a tool, from its own Resource and Operation parameters
 * (an Operation parameter shown outside the tool form only, e.g. Send and Wait for Approval's, is not
 * the tool's).
 */
function operations(): string[] {
	const { properties } = tenant.description;
	const values = (property: INodeProperties) =>
		(property.options ?? []).map((option) => String((option as { value: unknown }).value));
	const resources = values(properties.find((property) => property.name === 'resource')!);
	return resources.flatMap((resource) =>
		properties
			.filter(
				(property) =>
					property.name === 'operation' &&
					property.displayOptions?.show?.resource?.includes(resource) &&
					property.displayOptions?.show?.['@tool']?.[0] !== false,
			)
			.flatMap((property) => values(property).map((operation) => `${resource}.${operation}`)),
	);
}

function nodeOf(type: string, resource: string, operation: string): INode {
	return {
		id: 'tool',
		name: 'tool',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: { resource, operation },
	};
}

const nodeTypes: INodeTypes = {
	getByName: (name: string) => (name === 'siteTenantTool' ? tool : tenant),
	getByNameAndVersion: (name: string) => (name === 'siteTenantTool' ? tool : tenant),
	getKnownTypes: () => ({}),
};

test('each operation has one tool description, in the tool form only', () => {
	const all = operations();
	expect(all.length).toBeGreaterThan(10);
	for (const key of all) {
		const [resource, operation] = key.split('.');
		const shownIn = (type: INodeType) =>
			type.description.properties.filter(
				(property) =>
					property.name === 'toolDescription' &&
					NodeHelpers.displayParameter(
						{ resource, operation },
						property,
						nodeOf(type.description.name, resource, operation),
						type.description,
					),
			);
		expect({ key, inTool: shownIn(tool).length, outside: shownIn(tenant).length }).toEqual({
			key,
			inTool: 1,
			outside: 0,
		});
	}
	expect(
		Object.entries(TOOL_DESCRIPTIONS)
			.flatMap(([r, ops]) => Object.keys(ops).map((o) => `${r}.${o}`))
			.sort(),
	).toEqual(all.sort());
});

test('Send and Wait for Approval is offered outside the tool form only (agents get n8n 2.x review tool)', () => {
	const offered = (tool: boolean) =>
		tenant.description.properties
			.filter(
				(property) =>
					property.name === 'operation' &&
					property.displayOptions?.show?.resource?.includes('notification') &&
					property.displayOptions?.show?.['@tool']?.[0] === tool,
			)
			.flatMap((property) =>
				(property.options ?? []).map((option) => (option as { value: string }).value),
			);
	expect(offered(false)).toEqual(['send', 'sendAndWait']);
	expect(offered(true)).toEqual(['send']);
	expect(operations()).not.toContain('notification.sendAndWait');
});

test('write tools say they change the live site, read tools that they are safe', () => {
	for (const key of operations()) {
		const [resource, operation] = key.split('.');
		const text = TOOL_DESCRIPTIONS[resource][operation];
		if (READ_ONLY.includes(key))
			expect({ key, text }).toEqual({ key, text: expect.stringContaining('Read-only and safe') });
		else if (!NEITHER.includes(key))
			expect({ key, text }).toEqual({
				key,
				text: expect.stringMatching(/Changes the live website at once.*Needs /),
			});
	}
	expect(TOOL_DESCRIPTIONS.ai.applyProposal).toMatch(/Get Page Context.*version/);
});

test("n8n hands the model the operation's description, not the action name", () => {
	const workflow = new Workflow({
		nodes: [nodeOf('siteTenantTool', 'ai', 'applyProposal')],
		connections: {},
		active: false,
		nodeTypes,
	});
	const node = workflow.getNode('tool')!;
	expect(NodeHelpers.getToolDescriptionForNode(node, tool)).toBe(
		TOOL_DESCRIPTIONS.ai.applyProposal,
	);
});
