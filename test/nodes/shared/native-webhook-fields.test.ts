/**
 * Webhook-description fields with a native resolver (nodes/shared/nativeWebhookFields.ts): n8n 2.x
 * calls the resolver instead of evaluating the template whenever the node's parameters are static, so
 * the two must agree. Each is checked against n8n's own expression engine and n8n-workflow's own
 * `resolveWebhookDescriptionField`, for every value the parameters they read can take.
 */
import type {
	INode,
	INodeParameters,
	INodeTypeDescription,
	IWebhookDescription,
} from 'n8n-workflow';
import { Workflow, resolveWebhookDescriptionField } from 'n8n-workflow';

import { SiteContactFormTrigger } from '../../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node';

const trigger = new SiteContactFormTrigger();
const description = trigger.description as INodeTypeDescription;
const webhook = description.webhooks![0] as IWebhookDescription;

/** The node as n8n's Workflow holds it: the parameters with the description's defaults applied. */
function workflowNode(
	parameters: INodeParameters,
	typeVersion: number,
): { node: INode; workflow: Workflow } {
	const node: INode = {
		id: 'c0ffee00-0000-4000-8000-000000000001',
		name: 'Contact form',
		type: 'n8n-nodes-site-management.siteContactFormTrigger',
		typeVersion,
		position: [0, 0],
		parameters,
		webhookId: 'c0ffee00-0000-4000-8000-000000000002',
	};
	const workflow = new Workflow({
		id: 'native-fields',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => trigger,
			getByNameAndVersion: () => trigger,
			getKnownTypes: () => ({}),
		},
	});
	return { node: workflow.getNode(node.name)!, workflow };
}

const parameterSets: INodeParameters[] = [
	{},
	{ options: {} },
	{ options: { acknowledge: 'onReceived' } },
	{ options: { acknowledge: 'lastNode' } },
	{ options: { acknowledge: 'lastNode' }, path: 'my-form', registration: 'manual' },
	{ options: { includeHeaders: true, liftFields: true } },
];

test('the contact-form webhook resolves responseMode natively in n8n 2.x, as the expression does', () => {
	expect(String(webhook.responseMode)).toMatch(/^=\{\{.*\}\}$/);
	const seen = new Set<unknown>();
	for (const version of [1, 2])
		for (const parameters of parameterSets) {
			const { node, workflow } = workflowNode(parameters, version);
			const native = resolveWebhookDescriptionField(node, webhook, 'responseMode');
			const evaluated = workflow.expression.getSimpleParameterValue(
				node,
				webhook.responseMode,
				'internal',
				{},
			);
			expect(native).toEqual({ resolved: true, value: evaluated });
			seen.add(evaluated);
		}
	expect([...seen].sort()).toEqual(['lastNode', 'onReceived']);
});

test('a parameter holding an expression leaves the field to the engine', () => {
	const { node } = workflowNode({ options: { acknowledge: '={{"lastNode"}}' } }, 2);
	expect(resolveWebhookDescriptionField(node, webhook, 'responseMode')).toEqual({
		resolved: false,
	});
});

test('the path stays an expression (it falls back to the node id, which no parameter holds)', () => {
	const { node, workflow } = workflowNode({}, 2);
	expect(resolveWebhookDescriptionField(node, webhook, 'path')).toEqual({ resolved: false });
	expect(workflow.expression.getSimpleParameterValue(node, webhook.path, 'internal', {})).toBe(
		node.id,
	);
});

test('the resolvers are not part of the description the editor receives (JSON)', () => {
	const json = JSON.parse(JSON.stringify(description)) as INodeTypeDescription;
	expect(json.webhooks?.[0]).toEqual({
		name: 'default',
		httpMethod: 'POST',
		responseMode: webhook.responseMode,
		responseData: 'noData',
		path: webhook.path,
		isFullPath: false,
	});
	expect(Object.getOwnPropertySymbols(webhook)).toHaveLength(1);
});
