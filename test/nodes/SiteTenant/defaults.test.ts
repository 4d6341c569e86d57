/**
 * Site Management Tenant node, its safe defaults against the reference server, in n8n's engine:
 * Content > Update as it comes wipes nothing, Custom API Call as it comes works.
 */
import { byUrl } from '../../harness/locators';
import { readPage, seedPages, useNodeTestContext, type TenantContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
const BLOCKS = [
	{ type: 'heading', text: 'About us' },
	{ type: 'text', body: 'We are a small team.' },
];

let tenant: TenantContext;
beforeAll(async () => {
	tenant = await ctx.tenant('defaults');
	await seedPages(tenant.client, [
		{ url: '/about-us', name: 'About us' },
		{ url: '/contact', name: 'Contact' },
	]);
});

const putBlocks = async (url: string) => {
	const response = await tenant.client.put('/api/content', { url, templates: BLOCKS });
	expect(response.status).toBe(200);
};

describe('Content > Update: nothing is wiped unless asked', () => {
	const update = (parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
		tenant.run(
			{ resource: 'content', operation: 'update', url: byUrl('/about-us'), ...parameters },
			extra,
		);

	test('as it comes (no templates typed) it fails the item and the page keeps its blocks', async () => {
		await putBlocks('/about-us');
		// n8n itself refuses to run a workflow with a required parameter left empty.
		await expect(update({})).rejects.toThrow('Parameter "Templates" is required.');
		// An expression that comes out empty reaches the node, which refuses it the same way.
		const fromExpression = await update({ templates: '={{ $json.nothing }}' });
		expect(fromExpression.error?.message).toBe('Templates is required');
		expect(fromExpression.error?.description).toMatch(/turn on Clear All Blocks/);
		expect((await readPage(tenant.client, '/about-us'))?.templates).toEqual(BLOCKS);
	});

	test('an empty list is refused, also from an expression; nothing is sent', async () => {
		await putBlocks('/about-us');
		for (const templates of ['[]', ' [ ] ', '={{ [] }}', '={{ $json.blocks }}']) {
			const result = await update(
				{ templates },
				{ input: [{ json: { blocks: [] } }], continueOnFail: true },
			);
			expect(result.items[0].json).toEqual({
				error: 'Templates is an empty list: that would remove every block of the page',
				details:
					'Nothing was sent. To remove every block of the page on purpose, turn on Clear All Blocks.',
			});
		}
		expect((await readPage(tenant.client, '/about-us'))?.templates).toEqual(BLOCKS);
	});

	test('Clear All Blocks empties the page on purpose; the typed templates are not used', async () => {
		await putBlocks('/about-us');
		const result = await update({ clearAllBlocks: true, templates: '[{"type":"ignored"}]' });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ url: '/about-us', templates: [] });
		expect((await readPage(tenant.client, '/about-us'))?.templates).toEqual([]);
	});

	test('templates typed as text replace the blocks, and an empty Banner keeps the banner', async () => {
		await tenant.client.put('/api/content', {
			url: '/contact',
			templates: [],
			banner: { title: 'Keep me' },
		});
		const result = await update({
			url: byUrl('/contact'),
			templates: JSON.stringify(BLOCKS),
			banner: '',
		});
		expect(result.error).toBeUndefined();
		expect(await readPage(tenant.client, '/contact')).toMatchObject({
			templates: BLOCKS,
			banner: { title: 'Keep me' },
		});
	});
});

describe('Custom API Call: a default that works', () => {
	const call = (parameters: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
		tenant.run({ resource: 'customApiCall', operation: 'call', ...parameters }, extra);

	test("as it comes it lists the site's pages (GET /api/pages)", async () => {
		const result = await call({});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ meta: { total: 2 } });
		expect(
			(result.items[0].json.data as Array<{ url: string }>).map((page) => page.url).sort(),
		).toEqual(['/about-us', '/contact']);
	});

	test("Split Listing Into Items outputs one item per entry of the answer's data, each paired", async () => {
		const result = await call(
			{ splitData: true },
			{ input: [{ json: { n: 1 } }, { json: { n: 2 } }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.url, item.pairedItem])).toEqual(
			[
				['/about-us', { item: 0 }],
				['/contact', { item: 0 }],
				['/about-us', { item: 1 }],
				['/contact', { item: 1 }],
			].sort((a, b) => JSON.stringify(a[1]).localeCompare(JSON.stringify(b[1]))),
		);
		// An answer without a data list comes out as it is.
		const single = await call({ method: 'POST', path: '/api/sitemap', body: '', splitData: true });
		expect(single.items).toHaveLength(1);
		expect(single.items[0].json).toHaveProperty('pages');
	});
});
