/**
 * Dry Run of the fleet writes, in n8n's engine against the reference server: the operation reads,
 * sends no change, and passes its input on with a preview under `dryRun` (current and proposed
 * values, or "would create" / "exists" / "would delete"). And Setting > Update's `previous`.
 */
import type { IDataObject } from 'n8n-workflow';

import { byKey, byUrl } from '../../harness/locators';
import { writeProbe } from '../../harness/write-probe.node';
import { listPages, readPage, seedPages, useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
const plain = useNodeTestContext({ extensions: false });

const settingsOf = async (tenant: {
	client: { get: (path: string) => Promise<{ data: { settings: object } }> };
}) => (await tenant.client.get('/api/settings')).data.settings;

describe('Setting > Update', () => {
	test('Dry Run shows current and proposed values per field and changes nothing', async () => {
		const tenant = await ctx.tenant('dry-settings');
		await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-OLD' },
		});
		const before = await settingsOf(tenant);
		const result = await tenant.run(
			{
				resource: 'settings',
				operation: 'update',
				updateFields: { googleCode: 'G-NEW', noindex: false },
				dryRun: true,
			},
			{ input: [{ json: { site: 'dry-settings', googleCode: 'G-NEW' } }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({
			site: 'dry-settings',
			googleCode: 'G-NEW',
			dryRun: {
				result: 'would update',
				changes: {
					google_code: { before: 'G-OLD', after: 'G-NEW', changed: true },
					noindex: { before: 0, after: 0, changed: false },
				},
			},
		});
		expect(await settingsOf(tenant)).toEqual(before);

		const same = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-OLD' },
			dryRun: true,
		});
		expect(same.items[0].json.dryRun).toMatchObject({ result: 'unchanged' });
	});

	test('the output holds the previous values of the fields it changed, so they can be put back', async () => {
		const tenant = await ctx.tenant('previous-settings');
		await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-FIRST', noindex: true },
		});
		const changed = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-SECOND', noindex: true },
		});
		expect(changed.items[0].json).toMatchObject({ google_code: 'G-SECOND', noindex: 1 });
		expect(changed.items[0].json.previous).toEqual({ google_code: 'G-FIRST' });

		// Putting it back: the previous values are the service's own field names.
		const previous = changed.items[0].json.previous as { google_code: string };
		await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: previous.google_code },
		});
		expect(await settingsOf(tenant)).toMatchObject({ google_code: 'G-FIRST' });
	});

	test('a service that cannot read settings: the update works without previous; Dry Run says why it cannot', async () => {
		const tenant = await plain.tenant('no-read');
		const updated = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-X' },
		});
		expect(updated.error).toBeUndefined();
		expect(updated.items[0].json).toMatchObject({ google_code: 'G-X' });
		expect(updated.items[0].json).not.toHaveProperty('previous');
		const dry = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-Y' },
			dryRun: true,
		});
		expect(dry.error?.message).toBe("Dry Run cannot read this site's settings");
		expect(dry.error?.description).toMatch(
			/GET \/api\/settings\) is an extension of the reference server; the service answered 40[45]\. Nothing was sent\./,
		);
	});
});

describe('Page > Create and Delete', () => {
	test('Create: "would create" with what it would send, or "exists" with the page; nothing created', async () => {
		const tenant = await ctx.tenant('dry-pages');
		await seedPages(tenant.client, [{ url: '/there', name: 'There' }]);
		const result = await tenant.run(
			{
				resource: 'page',
				operation: 'create',
				name: 'Welcome',
				url: '={{ $json.url }}',
				locale: 'en',
				dryRun: true,
			},
			{ input: [{ json: { url: '/new' } }, { json: { url: '/there' } }] },
		);
		expect(result.items.map((item) => item.json)).toEqual([
			{
				url: '/new',
				dryRun: {
					result: 'would create',
					wouldSend: { name: 'Welcome', url: '/new', locale: 'en' },
				},
			},
			{
				url: '/there',
				dryRun: {
					result: 'exists',
					current: expect.objectContaining({ url: '/there', name: 'There' }),
				},
			},
		]);
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/there']);
	});

	test('Delete: "would delete" with the page as it is; a missing page fails as the delete would', async () => {
		const tenant = await ctx.tenant('dry-delete');
		await seedPages(tenant.client, [{ url: '/keep' }]);
		const result = await tenant.run(
			{
				resource: 'page',
				operation: 'delete',
				url: byUrl('={{ $json.url }}'),
				permanently: true,
				dryRun: true,
			},
			{ input: [{ json: { url: '/keep' } }, { json: { url: '/gone' } }], continueOnFail: true },
		);
		expect(result.items[0].json).toEqual({
			url: '/keep',
			dryRun: {
				result: 'would delete',
				permanently: true,
				current: expect.objectContaining({ url: '/keep' }),
			},
		});
		expect(result.items[1].json.error).toBe('No page with url "/gone"');
		expect(await readPage(tenant.client, '/keep')).toBeDefined();
	});
});

describe('Content > Update', () => {
	test('Dry Run shows the blocks and banner before and after; the page keeps its content', async () => {
		const tenant = await ctx.tenant('dry-content');
		await seedPages(tenant.client, [{ url: '/about' }]);
		const blocks = [{ type: 'text', body: 'Old' }];
		await tenant.client.put('/api/content', { url: '/about', templates: blocks });
		const result = await tenant.run({
			resource: 'content',
			operation: 'update',
			url: byUrl('/about'),
			templates: '[{"type":"text","body":"New"}]',
			dryRun: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.dryRun).toEqual({
			result: 'would update',
			url: '/about',
			changes: {
				templates: { before: blocks, after: [{ type: 'text', body: 'New' }], changed: true },
				banner: { before: null, after: null, changed: false },
			},
			wouldSend: { url: '/about', templates: [{ type: 'text', body: 'New' }] },
		});
		expect((await readPage(tenant.client, '/about'))?.templates).toEqual(blocks);
	});
});

describe('Variable > Set and Delete', () => {
	test('Set: current and proposed value, or "would create"; Delete: "would delete"; nothing changes', async () => {
		const tenant = await ctx.tenant('dry-variables');
		await tenant.run({ resource: 'variable', operation: 'set', key: 'colour', value: 'blue' });
		const set = await tenant.run(
			{
				resource: 'variable',
				operation: 'set',
				key: '={{ $json.key }}',
				value: 'red',
				dryRun: true,
			},
			{ input: [{ json: { key: 'colour' } }, { json: { key: 'size' } }] },
		);
		expect(set.items.map((item) => item.json.dryRun)).toEqual([
			{
				result: 'would update',
				key: 'colour',
				changes: { value: { before: 'blue', after: 'red', changed: true } },
			},
			{ result: 'would create', wouldSend: { key: 'size', value: 'red' } },
		]);
		const deleted = await tenant.run({
			resource: 'variable',
			operation: 'delete',
			key: byKey('colour'),
			dryRun: true,
		});
		expect(deleted.items[0].json.dryRun).toEqual({
			result: 'would delete',
			current: { key: 'colour', value: 'blue' },
		});
		const variables = (await tenant.client.get('/api/variables')).data;
		expect(JSON.stringify(variables)).toContain('"value":"blue"');
		expect(JSON.stringify(variables)).not.toContain('size');
	});
});

describe('Dry Run set by an expression', () => {
	// What an expression in Dry Run may give, and what the item then does.
	const values: Array<[IDataObject[string], 'dry' | 'real' | 'refused']> = [
		[true, 'dry'],
		['true', 'dry'],
		[' TRUE ', 'dry'],
		[1, 'dry'],
		['1', 'dry'],
		[false, 'real'],
		['false', 'real'],
		[0, 'real'],
		['0', 'real'],
		['', 'real'],
		['yes', 'refused'],
		[2, 'refused'],
		[{ dry: true }, 'refused'],
	];

	test('true, "true" and 1 preview; false, "false", 0 and empty write; anything else fails the item and writes nothing', async () => {
		const tenant = await ctx.tenant('dry-expression');
		const result = await tenant.run(
			{
				resource: 'variable',
				operation: 'set',
				key: '={{ "key" + $itemIndex }}',
				value: 'v',
				dryRun: '={{ $json.dry }}',
			},
			{ input: values.map(([dry]) => ({ json: { dry } })), continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const outcomes = result.items.map((item) =>
			item.json.error !== undefined ? 'refused' : item.json.dryRun !== undefined ? 'dry' : 'real',
		);
		expect(outcomes).toEqual(values.map(([, outcome]) => outcome));
		for (const item of result.items.filter((entry) => entry.json.error !== undefined))
			expect(item.json.error).toMatch(/^Dry Run must be true or false, not /);
		const written = (
			(await tenant.client.get('/api/variables')).data.data as Array<{ key: string }>
		)
			.map((variable) => variable.key)
			.sort();
		expect(written).toEqual(
			values
				.map(([, outcome], i) => (outcome === 'real' ? `key${i}` : undefined))
				.filter(Boolean)
				.sort(),
		);
	});

	test('every operation with a Dry Run reads it the same way: "true" writes nothing, "maybe" fails', async () => {
		const tenant = await ctx.tenant('dry-every-operation');
		await seedPages(tenant.client, [{ url: '/kept' }]);
		await tenant.client.put('/api/content', { url: '/kept', templates: [] });
		await tenant.run({ resource: 'variable', operation: 'set', key: 'kept', value: 'v' });
		const settingsBefore = await settingsOf(tenant);
		const operations = [
			{ resource: 'page', operation: 'create', name: 'New', url: '/new', locale: 'en' },
			{ resource: 'page', operation: 'delete', url: byUrl('/kept'), permanently: true },
			{
				resource: 'content',
				operation: 'update',
				url: byUrl('/kept'),
				templates: '[{"type":"text","body":"New"}]',
			},
			{ resource: 'settings', operation: 'update', updateFields: { googleCode: 'G-DRY' } },
			{ resource: 'variable', operation: 'set', key: 'new', value: 'v' },
			{ resource: 'variable', operation: 'delete', key: byKey('kept') },
			// A page named, no version: the guard (ai/guard.test.ts) is not what this test is about.
			{ resource: 'ai', operation: 'applyProposal', url: byUrl('/kept'), requireVersion: false },
		];
		const proposal = {
			url: '/kept',
			templates: [{ type: 'text', body: 'Proposed' }],
			banner: null,
		};
		for (const parameters of operations) {
			for (const [dryRun, dry] of [
				['={{ "true" }}', true],
				['={{ "maybe" }}', false],
			] as const) {
				const result = await tenant.run(
					{ ...parameters, dryRun },
					{ input: [{ json: { proposal } }], continueOnFail: true },
				);
				const label = `${parameters.resource} > ${parameters.operation} with Dry Run ${dryRun}`;
				expect({
					label,
					dryRun: result.items[0].json.dryRun !== undefined,
					error: result.items[0].json.error,
				}).toEqual({
					label,
					dryRun: dry,
					error: dry ? undefined : 'Dry Run must be true or false, not "maybe"',
				});
			}
		}
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/kept']);
		expect((await readPage(tenant.client, '/kept'))?.templates).toEqual([]);
		expect(await settingsOf(tenant)).toEqual(settingsBefore);
		const keys = (
			(await tenant.client.get('/api/variables')).data.data as Array<{ key: string }>
		).map((variable) => variable.key);
		expect(keys).toEqual(['kept']);
	});
});

describe('the sender in a dry run', () => {
	const probed = useNodeTestContext({}, { writeProbe });

	test('refuses every request that is not a read, even from an operation that forgot its Dry Run', async () => {
		const tenant = await probed.tenant('dry-sender');
		const probe = async (method: string, dryRun: boolean | string) =>
			await probed.runner.runNode({
				type: 'writeProbe',
				parameters: { method, path: '/api/variables', dryRun },
				credentials: tenant.credential,
				continueOnFail: true,
			});
		for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
			const refused = await probe(method, '={{ 1 }}');
			expect(refused.items[0].json.error).toBe(
				`Dry Run: ${method} /api/variables was not sent, a dry run sends only reads`,
			);
		}
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([]);
		// A read goes out; outside a dry run the write does too.
		expect((await probe('GET', true)).items[0].json.error).toBeUndefined();
		expect((await probe('PUT', false)).items[0].json.error).toBeUndefined();
		expect((await tenant.client.get('/api/variables')).data.data).toHaveLength(1);
	});
});
