/**
 * Tenant node version 3: pages and variables picked from lists (resource locators) or given by url /
 * key, the editor's list search through the node's transport, and one output shape per resource. The
 * same operations saved as versions 1 and 2 keep their string parameters and outputs.
 */
import { listSearch } from './harness/list-search';
import { readPage, seedPages, useNodeTestContext, type TenantContext } from './helpers/nodes';

const ctx = useNodeTestContext();
const V3 = { typeVersion: 3 };
const byList = (value: string) => ({ __rl: true, mode: 'list', value });
const byUrl = (value: string) => ({ __rl: true, mode: 'url', value });
const byKey = (value: string) => ({ __rl: true, mode: 'key', value });

describe('list search', () => {
	let tenant: TenantContext;
	// 60 news pages (more than one list page of 50) and a few others.
	const news = Array.from({ length: 60 }, (_, i) => ({ url: `/news/n-${String(i).padStart(2, '0')}`, name: `News ${i}` }));
	beforeAll(async () => {
		tenant = await ctx.tenant('picker');
		await seedPages(tenant.client, [
			{ url: '/about-us', name: 'Who We Are', locale: 'en' },
			{ url: '/de/team', name: 'About the team', locale: 'de', draft: true },
			...news,
		]);
	});
	const searchPages = (filter?: string, paginationToken?: string) =>
		listSearch(ctx.runner, {
			type: 'siteTenant',
			typeVersion: 3,
			method: 'searchPages',
			parameters: { resource: 'page', operation: 'get' },
			credentials: tenant.credential,
			filter,
			paginationToken,
		});

	test('a search term matches name or url; each entry shows name and url, locale and draft in the hint', async () => {
		const result = await searchPages('about');
		expect(result.results).toEqual([
			{ name: 'Who We Are (/about-us)', value: '/about-us', description: 'Locale en · published' },
			{ name: 'About the team (/de/team)', value: '/de/team', description: 'Locale de · draft' },
		]);
		expect(result.paginationToken).toBeUndefined();
	});

	test('pages through the list with the pagination token', async () => {
		const first = await searchPages('news');
		expect(first.results).toHaveLength(50);
		expect(first.paginationToken).toBe('2');
		const second = await searchPages('news', first.paginationToken);
		expect(second.results.map((item) => item.value)).toEqual(news.slice(50).map((page) => page.url));
		expect(second.paginationToken).toBeUndefined();
		const everything = await searchPages();
		expect(everything.results[0].value).toBe('/about-us');
		expect(everything.paginationToken).toBe('2');
	});

	test('goes through the transport: a wrong token fails with the server message and without the token', async () => {
		const wrong = ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token: 'stt_not-a-real-token' });
		const failure = listSearch(ctx.runner, {
			type: 'siteTenant',
			typeVersion: 3,
			method: 'searchPages',
			parameters: { resource: 'page', operation: 'get' },
			credentials: wrong,
		});
		await expect(failure).rejects.toMatchObject({ httpCode: '401' });
		const error = await failure.catch((caught: unknown) => caught);
		expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain('stt_not-a-real-token');
	});

	test('variables: filtered by a key fragment', async () => {
		await tenant.client.put('/api/variables', { key: 'newsletter_list', value: 'weekly' });
		await tenant.client.put('/api/variables', { key: 'colour', value: 'blue' });
		const result = await listSearch(ctx.runner, {
			type: 'siteTenant',
			typeVersion: 3,
			method: 'searchVariables',
			parameters: { resource: 'variable', operation: 'delete' },
			credentials: tenant.credential,
			filter: 'NEWS',
		});
		expect(result.results).toEqual([{ name: 'newsletter_list', value: 'newsletter_list', description: 'weekly' }]);
	});
});

describe('Page locator (version 3)', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('locator');
		await seedPages(tenant.client, [{ url: '/about-us', name: 'About us' }, { url: '/keep', name: 'Keep' }]);
	});

	test('Get: From List, By URL as a path and as a full address all read the page itself', async () => {
		for (const url of [byList('/about-us'), byUrl('/about-us'), byUrl('https://www.example.com/about-us?ref=mail')]) {
			const result = await tenant.run({ resource: 'page', operation: 'get', url }, V3);
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({ url: '/about-us', name: 'About us' });
		}
	});

	test('By URL that is no page url: n8n stops a typed value with the mode\'s message, the node one from an expression', async () => {
		await expect(tenant.run({ resource: 'page', operation: 'get', url: byUrl('about-us') }, V3)).rejects.toThrow(
			'Not a page url. Give a site path such as /about-us',
		);
		const result = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('={{ "about" + "-us" }}') }, V3);
		expect(result.error?.message).toBe('The parameter "Page" is not a page url: "about-us"');
		expect(result.error?.description).toContain('/about-us');
		await expect(tenant.run({ resource: 'page', operation: 'get', url: byList('') }, V3)).rejects.toThrow('Parameter "Page" is required');
		const empty = await tenant.run({ resource: 'page', operation: 'get', url: byList('={{ $json.missing ?? "" }}') }, V3);
		expect(empty.error?.message).toBe('The parameter "Page" is required');
	});

	test('an unknown page fails with the one reader\'s message, in Page > Get and AI > Get Page Context alike', async () => {
		const get = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('/nope') }, V3);
		const context = await tenant.run({ resource: 'ai', operation: 'getPageContext', url: byUrl('/nope') }, V3);
		expect(get.error?.message).toBe('No page with url "/nope"');
		expect(context.error?.message).toBe(get.error?.message);
	});

	test('one output shape: Create, Get, Content > Update and Apply Proposal output the page; Delete the page plus deleted', async () => {
		const created = await tenant.run({ resource: 'page', operation: 'create', name: 'Fresh', url: '/fresh', locale: 'en' }, V3);
		expect(created.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates: [] });
		expect(created.items[0].json).not.toHaveProperty('message');

		const templates = [{ type: 'text', text: 'Hi' }];
		const updated = await tenant.run(
			{ resource: 'content', operation: 'update', url: byList('/fresh'), templates: JSON.stringify(templates) },
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
		expect(applied.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates: [{ type: 'text', text: 'AI' }] });

		const deleted = await tenant.run({ resource: 'page', operation: 'delete', url: byList('/fresh') }, V3);
		expect(deleted.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', deleted: true, permanently: false });
		expect(deleted.items[0].json).not.toHaveProperty('page');
		expect(await readPage(tenant.client, '/fresh')).toBeUndefined();
	});

	test('versions 1 and 2 keep the string parameter and their answers as they were', async () => {
		for (const typeVersion of [1, 2]) {
			const url = `/old-${typeVersion}`;
			const created = await tenant.run({ resource: 'page', operation: 'create', name: 'Old', url, locale: 'en' }, { typeVersion });
			expect(created.items[0].json).toMatchObject({ message: 'Page created successfully.', page: { url } });
			const got = await tenant.run({ resource: 'page', operation: 'get', url }, { typeVersion });
			expect(got.items[0].json).toMatchObject({ url, name: 'Old' });
			const deleted = await tenant.run({ resource: 'page', operation: 'delete', url }, { typeVersion });
			expect(deleted.items[0].json).toMatchObject({ deleted: true, permanently: false, message: 'Page deleted successfully.', page: { url } });
		}
	});
});

describe('Variable locator (version 3)', () => {
	test('Get and Delete by list or key; Set outputs the variable; versions 1 and 2 as before', async () => {
		const tenant = await ctx.tenant('variable-locator');
		const set = await tenant.run({ resource: 'variable', operation: 'set', key: 'colour', value: 'blue' }, V3);
		expect(set.items[0].json).toEqual({ key: 'colour', value: 'blue' });

		const got = await tenant.run({ resource: 'variable', operation: 'get', key: byList('colour') }, V3);
		expect(got.items[0].json).toEqual({ key: 'colour', value: 'blue' });
		const missing = await tenant.run({ resource: 'variable', operation: 'get', key: byKey('size') }, V3);
		expect(missing.error?.message).toBe('No variable with key "size"');

		const deleted = await tenant.run({ resource: 'variable', operation: 'delete', key: byKey('colour') }, V3);
		expect(deleted.items[0].json).toEqual({ key: 'colour', deleted: true });
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([]);

		const oldSet = await tenant.run({ resource: 'variable', operation: 'set', key: 'size', value: 'L' }, { typeVersion: 2 });
		expect(oldSet.items[0].json).toEqual({ message: 'Variable saved.', variable: { key: 'size', value: 'L' } });
		const oldDelete = await tenant.run({ resource: 'variable', operation: 'delete', key: 'size' }, { typeVersion: 2 });
		expect(oldDelete.items[0].json).toEqual({ message: 'Variable deleted.', key: 'size', deleted: true });
	});
});
