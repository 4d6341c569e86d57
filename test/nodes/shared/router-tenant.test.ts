/**
 * The router's tenant hook (RunOptions.tenantOf) through n8n's engine, with a node of the test's own
 * whose only operation fails for items marked `fail`: output items carry the item's tenant, and the
 * error of a stopped run names the tenant of each failed item.
 */
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { executeOperations } from '../../../nodes/shared/router';
import { createRunner } from '../../harness/nodes';

class TenantEcho implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tenant Echo',
		name: 'tenantEcho',
		group: ['transform'],
		version: 1,
		description: 'Echoes items; fails the marked ones',
		defaults: { name: 'Tenant Echo' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Resource', name: 'resource', type: 'hidden', default: 'site' },
			{ displayName: 'Operation', name: 'operation', type: 'hidden', default: 'echo' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(
			this,
			{
				site: {
					echo: async function (this: IExecuteFunctions, itemIndex: number) {
						const json = this.getInputData()[itemIndex].json;
						if (json.fail) throw new NodeOperationError(this.getNode(), 'refused', { itemIndex });
						return { done: true };
					},
				},
			},
			{
				labels: { 'site:echo': 'Site > Echo' },
				tenantOf(itemIndex) {
					return (this.getInputData()[itemIndex].json.site as string) || undefined;
				},
			},
		);
	}
}

const runner = createRunner({ tenantEcho: new TenantEcho() });
const input = [
	{ json: { site: 'acme' } },
	{ json: { site: 'globex', fail: true } },
	{ json: {} },
	{ json: { site: 'initech', fail: true } },
];
const run = async (onError?: 'continueRegularOutput' | 'continueErrorOutput') =>
	await runner.runNode({
		type: 'tenantEcho',
		parameters: { options: { concurrency: 4 } },
		input,
		onError,
	});

test('output items and regular error items carry tenant_id where the hook knows the tenant', async () => {
	const result = await run('continueRegularOutput');
	expect(result.items.map((item) => item.json)).toEqual([
		{ tenant_id: 'acme', done: true },
		{ tenant_id: 'globex', error: 'refused' },
		{ done: true },
		{ tenant_id: 'initech', error: 'refused' },
	]);
});

test('error output items name the tenant and the operation under error', async () => {
	const result = await run('continueErrorOutput');
	expect(result.outputs[1].map((item) => item.json.error)).toEqual([
		{ message: 'refused', operation: 'Site > Echo', tenant: 'globex' },
		{ message: 'refused', operation: 'Site > Echo', tenant: 'initech' },
	]);
});

test('a stopped run names the tenant of each failed item', async () => {
	const result = await run();
	expect(result.error?.description).toBe(
		[
			'Site > Echo stopped at the first failure: 2 of 4 items applied, 2 failed, 0 not started.',
			'Applied: items 0, 2.',
			'Failed: item 1 (tenant "globex"): refused',
			'Failed: item 3 (tenant "initech"): refused',
		].join('\n'),
	);
});
