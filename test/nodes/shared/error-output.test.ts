/**
 * n8n's On Error settings through n8n's own engine (WorkflowExecute splits the error output):
 * "Continue (using error output)" sends every failed item to the error output, paired with its input
 * (whose fields n8n merges in); "Continue (regular output)" keeps the error items in the output.
 */
import type { INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SiteAdmin } from '../../../nodes/SiteAdmin/SiteAdmin.node';
import { SiteTenant } from '../../../nodes/SiteTenant/SiteTenant.node';
import { seedPages, useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

/** Every resource/operation pair a node offers in its editor. */
function operationsOf(node: INodeType): Array<[string, string]> {
	const pairs = new Set<string>();
	for (const property of node.description.properties as INodeProperties[]) {
		if (property.name !== 'operation') continue;
		for (const resource of (property.displayOptions?.show?.resource ?? []) as string[])
			for (const option of property.options ?? [])
				if ('value' in option) pairs.add(`${resource}:${String(option.value)}`);
	}
	return [...pairs].map((pair) => pair.split(':') as [string, string]);
}

/** A value for each required parameter the operation shows, so n8n lets the node run. */
function requiredParameters(node: INodeType, resource: string, operation: string): INodeParameters {
	const parameters: INodeParameters = { resource, operation };
	const shown = (property: INodeProperties) =>
		!(property.name in parameters) &&
		NodeHelpers.displayParameter(parameters, property, null, node.description);
	// Defaults first: they decide which required parameters show (Clear All Blocks off: Templates).
	for (const property of node.description.properties)
		if (!property.required && shown(property)) parameters[property.name] = property.default;
	for (const property of node.description.properties) {
		if (!property.required || !shown(property)) continue;
		if (property.type === 'resourceLocator') parameters[property.name] = { mode: 'id', value: 'x' };
		else if (property.type === 'options')
			parameters[property.name] = (property.options?.[0] as { value: string }).value;
		else if (property.type === 'number') parameters[property.name] = 1;
		else parameters[property.name] = 'x';
	}
	return { ...parameters, options: { maxRetries: 0 } };
}

const input = [{ json: { site: 'first' } }, { json: { site: 'second' } }];

describe.each([
	['siteTenant', new SiteTenant(), 'siteTenantApi', 'stt_not-a-token-of-this-server'],
	['siteAdmin', new SiteAdmin(), 'siteAdminApi', 'not-the-admin-token-of-this-server'],
])('%s: every operation', (type, node, credentialType, badToken) => {
	test.each(operationsOf(node))(
		'%s > %s: failed items leave by the error output, paired and merged with their input',
		async (resource, operation) => {
			const credentials = ctx.runner.credentials.add(credentialType, {
				baseUrl: ctx.site.url,
				token: badToken,
			});
			const parameters = requiredParameters(node, resource, operation);
			const split = await ctx.runner.runNode({
				type,
				parameters,
				credentials,
				input,
				onError: 'continueErrorOutput',
			});
			expect(split.error).toBeUndefined();
			expect(split.outputs[0]).toEqual([]);
			expect(split.outputs[1].map((item) => [item.pairedItem, item.json.site])).toEqual([
				[{ item: 0 }, 'first'],
				[{ item: 1 }, 'second'],
			]);
			for (const item of split.outputs[1]) {
				expect(typeof item.json.message).toBe('string');
				expect(item.json.error).toMatchObject({
					message: item.json.message,
					operation: expect.stringMatching(
						/^(Page|Content|Asset|Setting|Sitemap|Notification|Variable|AI|API Call|Tenant|Token) > /,
					),
				});
			}

			const regular = await ctx.runner.runNode({
				type,
				parameters,
				credentials,
				input,
				onError: 'continueRegularOutput',
			});
			expect(regular.outputs).toHaveLength(1);
			expect(regular.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
			// The error items as they always were: error, details, httpCode, no input fields.
			for (const [index, item] of regular.items.entries()) {
				expect(
					Object.keys(item.json).every((key) => ['error', 'details', 'httpCode'].includes(key)),
				).toBe(true);
				expect(item.json.error).toBe(split.outputs[1][index].json.message);
				expect(item.error).toBeUndefined();
			}
		},
	);
});

describe('a run with some failures', () => {
	const create = {
		resource: 'page',
		operation: 'create',
		name: 'Welcome',
		url: '={{ $json.url }}',
		locale: 'en',
	};
	const urls = ['/ok-0', '/taken', '/ok-2', 'bad url', '/ok-4'];

	test('under the error output: successes on the first output, failures with status on the second', async () => {
		const tenant = await ctx.tenant('split-run');
		await seedPages(tenant.client, [{ url: '/taken' }]);
		const result = await tenant.run(create, {
			input: urls.map((url, i) => ({ json: { url, row: i } })),
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		expect(result.outputs[0].map((item) => [item.pairedItem, item.json.url])).toEqual([
			[{ item: 0 }, '/ok-0'],
			[{ item: 2 }, '/ok-2'],
			[{ item: 4 }, '/ok-4'],
		]);
		// Only message and error of its own (n8n's rule for the error output): n8n added the input's
		// fields (url, row).
		expect(result.outputs[1].map((item) => item.json)).toEqual([
			{
				url: '/taken',
				row: 1,
				message: 'A page with url "/taken" already exists.',
				error: {
					message: 'A page with url "/taken" already exists.',
					operation: 'Page > Create',
					httpCode: '409',
					errorCode: 'conflict',
				},
			},
			{
				url: 'bad url',
				row: 3,
				message: 'The field url is invalid.',
				error: {
					message: 'The field url is invalid.',
					operation: 'Page > Create',
					httpCode: '400',
					errorCode: 'validation_failed',
					description: expect.stringMatching(/^url: must be a site path/),
					fields: [{ field: 'url', problem: expect.stringMatching(/^must be a site path/) }],
				},
			},
		]);
		expect(result.outputs[1].map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 3 }]);
	});

	test('a branch on each output: the next node sees only its own items', async () => {
		const tenant = await ctx.tenant('branch-run');
		await seedPages(tenant.client, [{ url: '/taken' }]);
		const notify = {
			resource: 'notification',
			operation: 'send',
			notificationId: '={{ "welcome-" + $json.url }}',
			message: '={{ "Welcome page " + $json.url }}',
		};
		const report = {
			resource: 'notification',
			operation: 'send',
			notificationId: '={{ "failed-" + $json.url }}',
			message: '={{ "Failed: " + $json.url + " (" + $json.error.httpCode + ")" }}',
		};
		const credentials = tenant.credential;
		const node = (name: string, parameters: object, extra: object = {}) => ({
			id: name,
			name,
			type: 'siteTenant',
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: parameters as never,
			credentials,
			...extra,
		});
		const { sourceRegistry } = await import('../../harness/item-source.node');
		sourceRegistry.set(
			'branch-run',
			urls.map((url) => ({ json: { url } })),
		);
		try {
			const run = await ctx.runner.runWorkflow(
				[
					{
						id: 's',
						name: 'Source',
						type: 'test.itemSource',
						typeVersion: 1,
						position: [0, 0],
						parameters: { key: 'branch-run' },
					},
					node('Create', create, { onError: 'continueErrorOutput' }),
					node('Welcome', notify),
					node('Report', report),
				],
				{
					Source: { main: [[{ node: 'Create', type: 'main', index: 0 }]] },
					Create: {
						main: [
							[{ node: 'Welcome', type: 'main', index: 0 }],
							[{ node: 'Report', type: 'main', index: 0 }],
						],
					},
				},
			);
			expect(run.data.resultData.error).toBeUndefined();
			const out = (name: string) =>
				run.data.resultData.runData[name][0].data!.main[0]!.map((item) => item.json.message);
			expect(out('Welcome')).toEqual([
				'Welcome page /ok-0',
				'Welcome page /ok-2',
				'Welcome page /ok-4',
			]);
			expect(out('Report')).toEqual(['Failed: /taken (409)', 'Failed: bad url (400)']);
		} finally {
			sourceRegistry.delete('branch-run');
		}
	});
});
