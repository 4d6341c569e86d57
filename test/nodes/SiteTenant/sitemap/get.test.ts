/** Tenant node, Sitemap > Get. */
import { jsonOf, seedPages, useNodeTestContext, type TenantContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Sitemap > Get', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('sitemap');
		await seedPages(tenant.client, [
			{ url: '/b', name: 'B', locale: 'en' },
			{ url: '/a', name: 'A', locale: 'en' },
			{ url: '/de/c', name: 'C', locale: 'de' },
			{ url: '/draft', name: 'Draft', locale: 'en', draft: true },
			{ url: '/gone', name: 'Gone', locale: 'en' },
		]);
		await tenant.client.delete('/api/page', { data: { url: '/gone' } });
	});

	test('whole sitemap as one item: published pages only', async () => {
		const result = await tenant.run({ resource: 'sitemap', operation: 'get' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toEqual({
			generated_at: expect.any(String),
			tenant_id: 'sitemap',
			pages: [
				{ url: '/a', name: 'A', locale: 'en', updated_at: expect.any(String) },
				{ url: '/b', name: 'B', locale: 'en', updated_at: expect.any(String) },
				{ url: '/de/c', name: 'C', locale: 'de', updated_at: expect.any(String) },
			],
		});
	});

	test('split into one item per page, and filtered by locale', async () => {
		const split = await tenant.run({ resource: 'sitemap', operation: 'get', splitIntoItems: true });
		expect(split.items.map((item) => [item.json.url, item.pairedItem])).toEqual([
			['/a', { item: 0 }],
			['/b', { item: 0 }],
			['/de/c', { item: 0 }],
		]);

		const german = await tenant.run({
			resource: 'sitemap',
			operation: 'get',
			locale: 'de',
			splitIntoItems: true,
		});
		expect(jsonOf(german.items)).toEqual([
			{ url: '/de/c', name: 'C', locale: 'de', updated_at: expect.any(String) },
		]);

		const none = await tenant.run({
			resource: 'sitemap',
			operation: 'get',
			locale: 'fr',
			splitIntoItems: true,
		});
		expect(none.error).toBeUndefined();
		expect(none.items).toEqual([]);
	});
});
