/**
 * The router's target per item (RunOptions.resolveTarget) through n8n's engine, with a node of the test's own
 * whose only operation fails for items marked `fail`: output items carry the item's tenant, and the
 * error of a stopped run names the tenant of each failed item.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { createRunner } from '../../harness/nodes';
import { routedNode } from '../../harness/routed-node';

const tenantEcho = routedNode(
	'tenantEcho',
	async function (this: IExecuteFunctions, itemIndex: number) {
		const json = this.getInputData()[itemIndex].json;
		if (json.fail) throw new NodeOperationError(this.getNode(), 'refused', { itemIndex });
		return { done: true };
	},
	{
		runOptions: {
			labels: { 'test:run': 'Site > Echo' },
			// The item's target as the router hands it on: here its tenant is the item's `site`.
			resolveTarget: async (ctx, itemIndex) => ({
				credentialType: 'siteManagedTenantApi',
				credentials: {},
				tenantId: (ctx.getInputData()[itemIndex].json.site as string) || undefined,
				baseUrl: 'http://127.0.0.1:9',
				timeout: 1000,
				maxRetries: 0,
				dryRun: false,
			}),
		},
	},
);

const runner = createRunner({ tenantEcho });
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

test('output items and regular error items carry tenant_id where the target names the tenant', async () => {
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

test.each([
	['test', 'constructor'],
	['test', 'toString'],
	['constructor', 'name'],
	['__proto__', 'run'],
])(
	'resource %s, operation %s: not an own handler, so the item fails as unsupported',
	async (resource, operation) => {
		const result = await runner.runNode({
			type: 'tenantEcho',
			parameters: { resource, operation },
			input: [{ json: { site: 'acme' } }],
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	},
);
