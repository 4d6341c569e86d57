/**
 * Tenant node version 3: pages picked from a list or given by url, one output shape per resource.
 * The same operations saved as versions 1 and 2 keep their string parameters and outputs.
 */
import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();
const V3 = { typeVersion: 3 };
const byList = (value: string) => ({ __rl: true, mode: 'list', value });
const byUrl = (value: string) => ({ __rl: true, mode: 'url', value });

describe('Page locator (version 3)', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('locator');
		await seedPages(tenant.client, [
			{ url: '/about-us', name: 'About us' },
			{ url: '/keep', name: 'Keep' },
		]);
	});

	test('Get: From List, By URL as a path and as a full address all read the page itself', async () => {
		for (const url of [
			byList('/about-us'),
			byUrl('/about-us'),
			byUrl('https://www.example.com/about-us?ref=mail'),
		]) {
			const result = await tenant.run({ resource: 'page', operation: 'get', url }, V3);
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({ url: '/about-us', name: 'About us' });
		}
	});

	test("By URL that is no page url: n8n stops a typed value with the mode's message, the node one from an expression", async () => {
		await expect(
			tenant.run({ resource: 'page', operation: 'get', url: byUrl('about-us') }, V3),
		).rejects.toThrow('Not a page url. Give a site path such as /about-us');
		const result = await tenant.run(
			{ resource: 'page', operation: 'get', url: byUrl('={{ "about" + "-us" }}') },
			V3,
		);
		expect(result.error?.message).toBe('The parameter "Page" is not a page url: "about-us"');
		expect(result.error?.description).toContain('/about-us');
		await expect(
			tenant.run({ resource: 'page', operation: 'get', url: byList('') }, V3),
		).rejects.toThrow('Parameter "Page" is required');
		const empty = await tenant.run(
			{ resource: 'page', operation: 'get', url: byList('={{ $json.missing ?? "" }}') },
			V3,
		);
		expect(empty.error?.message).toBe('The parameter "Page" is required');
	});

	test("an unknown page fails with the one reader's message, in Page > Get and AI > Get Page Context alike", async () => {
		const get = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('/nope') }, V3);
		const context = await tenant.run(
			{ resource: 'ai', operation: 'getPageContext', url: byUrl('/nope') },
			V3,
		);
		expect(get.error?.message).toBe('No page with url "/nope"');
		expect(context.error?.message).toBe(get.error?.message);
	});

	test('one output shape: Create, Get, Content > Update and Apply Proposal output the page; Delete the page plus deleted', async () => {
		const created = await tenant.run(
			{ resource: 'page', operation: 'create', name: 'Fresh', url: '/fresh', locale: 'en' },
			V3,
		);
		expect(created.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates: [] });
		expect(created.items[0].json).not.toHaveProperty('message');

		const templates = [{ type: 'text', text: 'Hi' }];
		const updated = await tenant.run(
			{
				resource: 'content',
				operation: 'update',
				url: byList('/fresh'),
				templates: JSON.stringify(templates),
			},
			V3,
		);
		expect(updated.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates });

		const applied = await tenant.run(
			{
				resource: 'ai',
				operation: 'applyProposal',
				proposalSource: 'json',
				proposalJson: JSON.stringify({ templates: [{ type: 'text', text: 'AI' }] }),
				url: byList('/fresh'),
			},
			V3,
		);
		expect(applied.error).toBeUndefined();
		expect(applied.items[0].json).toMatchObject({
			url: '/fresh',
			name: 'Fresh',
			templates: [{ type: 'text', text: 'AI' }],
		});

		const deleted = await tenant.run(
			{ resource: 'page', operation: 'delete', url: byList('/fresh') },
			V3,
		);
		expect(deleted.items[0].json).toMatchObject({
			url: '/fresh',
			name: 'Fresh',
			deleted: true,
			permanently: false,
		});
		expect(deleted.items[0].json).not.toHaveProperty('page');
		expect(await readPage(tenant.client, '/fresh')).toBeUndefined();
	});

	test('versions 1 and 2 keep the string parameter and their answers as they were', async () => {
		for (const typeVersion of [1, 2]) {
			const url = `/old-${typeVersion}`;
			const created = await tenant.run(
				{ resource: 'page', operation: 'create', name: 'Old', url, locale: 'en' },
				{ typeVersion },
			);
			expect(created.items[0].json).toMatchObject({
				message: 'Page created successfully.',
				page: { url },
			});
			const got = await tenant.run({ resource: 'page', operation: 'get', url }, { typeVersion });
			expect(got.items[0].json).toMatchObject({ url, name: 'Old' });
			const deleted = await tenant.run(
				{ resource: 'page', operation: 'delete', url },
				{ typeVersion },
			);
			expect(deleted.items[0].json).toMatchObject({
				deleted: true,
				permanently: false,
				message: 'Page deleted successfully.',
				page: { url },
			});
		}
	});
});
