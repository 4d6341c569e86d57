/**
 * Only If Unchanged on the writes besides Setting > Update (Variable > Set and Delete, Page >
 * Delete), in n8n's engine against the reference server: the write fed by its Dry Run preview
 * happens only where the site still has what the preview saw; an edit made after the preview fails
 * the item, names what changed, and stays.
 */
import type { INodeParameters } from 'n8n-workflow';

import { byKey, byUrl } from '../../harness/locators';
import { readPage, seedPages, useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

type Tenant = Awaited<ReturnType<typeof ctx.tenant>>;

const variables = async (tenant: Tenant) =>
	(await tenant.client.get('/api/variables')).data.data as Array<{ key: string; value: string }>;
const setVariable = async (tenant: Tenant, key: string, value: string) =>
	await tenant.client.put('/api/variables', { key, value });

/** The write previewed first, then (after an approval) run fed by that preview. */
async function previewThenApply(
	tenant: Tenant,
	parameters: INodeParameters,
	between?: () => Promise<void>,
) {
	const preview = await tenant.run({ ...parameters, dryRun: true });
	expect(preview.error).toBeUndefined();
	await between?.();
	return await tenant.run(
		{ ...parameters, onlyIfUnchanged: true, previewedValues: '={{ $json.dryRun }}' },
		{ input: preview.items.map(({ json }) => ({ json })), continueOnFail: true },
	);
}

describe('Variable > Set', () => {
	const set = (key: string, value: string) => ({
		resource: 'variable',
		operation: 'set',
		key,
		value,
	});

	test('applied where the value is as previewed', async () => {
		const tenant = await ctx.tenant('unchanged-var-set');
		await setVariable(tenant, 'colour', 'blue');
		const result = await previewThenApply(tenant, set('colour', 'green'));
		expect(result.items[0].json).toEqual({ key: 'colour', value: 'green' });
	});

	test('a value changed after the preview fails the item; the edit stays', async () => {
		const tenant = await ctx.tenant('unchanged-var-edited');
		await setVariable(tenant, 'colour', 'blue');
		const result = await previewThenApply(tenant, set('colour', 'green'), async () => {
			await setVariable(tenant, 'colour', 'red');
		});
		expect(result.items[0].json.error).toBe(
			'Only If Unchanged: value is "red" on the site, not the previewed "blue"; nothing was written',
		);
		expect(await variables(tenant)).toEqual([{ key: 'colour', value: 'red' }]);
	});

	test('a key the preview saw absent: created if still absent, refused if made since', async () => {
		const tenant = await ctx.tenant('unchanged-var-new');
		const created = await previewThenApply(tenant, set('fresh', 'one'));
		expect(created.items[0].json).toEqual({ key: 'fresh', value: 'one' });

		const raced = await previewThenApply(tenant, set('late', 'one'), async () => {
			await setVariable(tenant, 'late', 'human');
		});
		expect(raced.items[0].json.error).toBe(
			'Only If Unchanged: variable "late" exists on the site now, the preview saw none; nothing was written',
		);
		expect((await variables(tenant)).find((v) => v.key === 'late')?.value).toBe('human');
	});
});

describe('Variable > Delete', () => {
	const del = { resource: 'variable', operation: 'delete', key: byKey('colour') };

	test('deleted where the value is as previewed; refused where it changed since', async () => {
		const tenant = await ctx.tenant('unchanged-var-delete');
		await setVariable(tenant, 'colour', 'blue');
		const refused = await previewThenApply(tenant, del, async () => {
			await setVariable(tenant, 'colour', 'red');
		});
		expect(refused.items[0].json.error).toBe(
			'Only If Unchanged: value is "red" on the site, not the previewed "blue"; nothing was written',
		);
		expect(await variables(tenant)).toEqual([{ key: 'colour', value: 'red' }]);

		const deleted = await previewThenApply(tenant, del);
		expect(deleted.items[0].json).toEqual({ key: 'colour', deleted: true });
		expect(await variables(tenant)).toEqual([]);
	});
});

describe('Page > Delete', () => {
	const del = { resource: 'page', operation: 'delete', url: byUrl('/old-news') };

	test('a page edited after the preview is not deleted; one as previewed is', async () => {
		const tenant = await ctx.tenant('unchanged-page-delete');
		await seedPages(tenant.client, [{ url: '/old-news', name: 'Old news' }]);
		const refused = await previewThenApply(tenant, del, async () => {
			await tenant.client.put('/api/content', {
				url: '/old-news',
				templates: [{ type: 'text', text: 'Corrected by hand' }],
			});
		});
		expect(refused.items[0].json.error).toMatch(
			/^Only If Unchanged: updated_at is "[^"]+" on the site, not the previewed "[^"]+"; nothing was written$/,
		);
		expect(await readPage(tenant.client, '/old-news')).toMatchObject({
			templates: [{ type: 'text', text: 'Corrected by hand' }],
		});

		const deleted = await previewThenApply(tenant, del);
		expect(deleted.items[0].json).toMatchObject({ url: '/old-news', deleted: true });
		expect(await readPage(tenant.client, '/old-news')).toBeUndefined();
	});
});
