/** Tenant node, Page resource: Get Many, Get, Create, Delete, against the reference server. */
import { byList, byUrl } from '../../../harness/locators';
import {
	jsonOf,
	listPages,
	readPage,
	seedPages,
	storedPageRows,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Get Many', () => {
	let tenant: TenantContext;
	// 120 published English pages, 10 German ones of which 4 are drafts, 5 English drafts: 135 in all.
	const english = Array.from({ length: 120 }, (_, i) => ({
		url: `/en/page-${String(i).padStart(3, '0')}`,
		locale: 'en',
	}));
	const german = Array.from({ length: 10 }, (_, i) => ({
		url: `/de/seite-${i}`,
		locale: 'de',
		draft: i < 4,
	}));
	const drafts = Array.from({ length: 5 }, (_, i) => ({
		url: `/en/draft-${i}`,
		locale: 'en',
		draft: true,
	}));
	const all = [...english, ...german, ...drafts];

	beforeAll(async () => {
		tenant = await ctx.tenant('listing');
		await seedPages(tenant.client, all);
	});

	test('Return All walks every page of the listing (more than 100) in order, one item per page', async () => {
		const result = await tenant.run({ resource: 'page', operation: 'getAll', returnAll: true });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(all.length);
		// Creation order, nothing twice, nothing missing.
		expect(result.items.map((item) => item.json.url)).toEqual(all.map((page) => page.url));
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(
			true,
		);
		expect(result.items[0].json).toMatchObject({
			url: '/en/page-000',
			name: '/en/page-000',
			locale: 'en',
			draft: false,
			templates: [],
			banner: null,
		});
	});

	test('Limit returns that many, also beyond one listing page', async () => {
		const seven = await tenant.run({
			resource: 'page',
			operation: 'getAll',
			returnAll: false,
			limit: 7,
		});
		expect(seven.items.map((item) => item.json.url)).toEqual(
			all.slice(0, 7).map((page) => page.url),
		);

		const many = await tenant.run({
			resource: 'page',
			operation: 'getAll',
			returnAll: false,
			limit: 110,
		});
		expect(many.items.map((item) => item.json.url)).toEqual(
			all.slice(0, 110).map((page) => page.url),
		);

		const more = await tenant.run({
			resource: 'page',
			operation: 'getAll',
			returnAll: false,
			limit: 500,
		});
		expect(more.items).toHaveLength(all.length);
	});

	test('filters: locale, draft state, url, and combined', async () => {
		const urls = async (filters: Record<string, string>, returnAll = true) =>
			(
				await tenant.run({ resource: 'page', operation: 'getAll', returnAll, limit: 50, filters })
			).items.map((item) => item.json.url);

		expect(await urls({ locale: 'de' })).toEqual(german.map((page) => page.url));
		expect(await urls({ draft: 'true' })).toEqual(
			[...german.slice(0, 4), ...drafts].map((page) => page.url),
		);
		expect(await urls({ draft: 'false' })).toEqual(
			[...english, ...german.slice(4)].map((page) => page.url),
		);
		expect(await urls({ draft: 'any', locale: 'de' })).toHaveLength(10);
		expect(await urls({ locale: 'de', draft: 'false' })).toEqual(
			german.slice(4).map((page) => page.url),
		);
		expect(await urls({ url: '/en/page-042' })).toEqual(['/en/page-042']);
		expect(await urls({ url: '/does/not/exist' })).toEqual([]);
		expect(await urls({ locale: 'fr' })).toEqual([]);
		expect(await urls({ locale: 'en', draft: 'false' }, false)).toEqual(
			english.slice(0, 50).map((page) => page.url),
		);
	});

	test('one listing per input item, each paired with its item', async () => {
		const result = await tenant.run(
			{
				resource: 'page',
				operation: 'getAll',
				returnAll: true,
				filters: { locale: '={{ $json.locale }}', draft: 'false' },
			},
			{
				input: [{ json: { locale: 'de' } }, { json: { locale: 'fr' } }, { json: { locale: 'de' } }],
			},
		);
		expect(
			result.items.map((item) => [item.json.url, (item.pairedItem as { item: number }).item]),
		).toEqual([
			...german.slice(4).map((page) => [page.url, 0]),
			...german.slice(4).map((page) => [page.url, 2]),
		]);
	});
});

describe('Get', () => {
	test('returns one page by url with its content; a missing url fails the item', async () => {
		const tenant = await ctx.tenant('getter');
		await seedPages(tenant.client, [
			{ url: '/about', name: 'About' },
			{ url: '/about-us', name: 'About us' },
		]);
		const content = await tenant.client.put('/api/content', {
			url: '/about',
			templates: [{ type: 'text', text: 'Hello' }],
			banner: { title: 'Hi' },
		});
		expect(content.status).toBe(200);

		const result = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('/about') });
		expect(result.error).toBeUndefined();
		expect(jsonOf(result.items)).toEqual([
			expect.objectContaining({
				url: '/about',
				name: 'About',
				templates: [{ type: 'text', text: 'Hello' }],
				banner: { title: 'Hi' },
			}),
		]);

		const missing = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('/abou') });
		expect(missing.items).toHaveLength(0);
		expect(missing.error?.message).toBe('No page with url "/abou"');

		const continued = await tenant.run(
			{ resource: 'page', operation: 'get', url: byUrl('={{ $json.url }}') },
			{ input: [{ json: { url: '/nope' } }, { json: { url: '/about-us' } }], continueOnFail: true },
		);
		expect(
			continued.items.map((item) => [item.json.error ?? item.json.url, item.pairedItem]),
		).toEqual([
			['No page with url "/nope"', { item: 0 }],
			['/about-us', { item: 1 }],
		]);
	});
});

describe('Create', () => {
	test('creates a page with name, url, locale and the additional fields', async () => {
		const tenant = await ctx.tenant('creator');
		const result = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'Über uns',
			url: '/de/ueber-uns',
			locale: 'de',
			additionalFields: {
				metaTitle: 'Über uns | Acme',
				metaDescription: 'Wer wir sind',
				draft: true,
			},
		});
		expect(result.error).toBeUndefined();
		// The output is the page itself, as the service stored it.
		expect(result.items[0].json).toEqual(await readPage(tenant.client, '/de/ueber-uns'));
		expect(result.items[0].json).toMatchObject({
			url: '/de/ueber-uns',
			name: 'Über uns',
			locale: 'de',
			meta_title: 'Über uns | Acme',
			meta_description: 'Wer wir sind',
			draft: true,
			templates: [],
			banner: null,
		});
	});

	test('without additional fields the page is published with no meta data', async () => {
		const tenant = await ctx.tenant('creator-plain');
		const result = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'Home',
			url: '/',
			locale: 'en',
		});
		expect(result.error).toBeUndefined();
		expect(await readPage(tenant.client, '/')).toMatchObject({
			name: 'Home',
			draft: false,
			meta_title: null,
			meta_description: null,
		});
	});

	test('a taken url fails with 409; an invalid one with the field named; nothing else is created', async () => {
		const tenant = await ctx.tenant('creator-conflict');
		await seedPages(tenant.client, [{ url: '/taken', name: 'Original' }]);

		const taken = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'Copy',
			url: '/taken',
			locale: 'en',
		});
		expect(taken.error?.httpCode).toBe('409');
		expect((await readPage(tenant.client, '/taken'))?.name).toBe('Original');

		const invalid = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'Bad',
			url: 'no-leading-slash',
			locale: 'en',
		});
		expect(invalid.error?.httpCode).toBe('400');
		expect(invalid.error?.description).toMatch(/^url: /m);

		// n8n itself refuses an empty required parameter; an expression that comes out blank reaches the node.
		const empty = await tenant.run(
			{ resource: 'page', operation: 'create', name: '={{ $json.name }}', url: '/x', locale: 'en' },
			{ input: [{ json: { name: '  ' } }] },
		);
		expect(empty.error?.message).toBe('Name is required');
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/taken']);
	});
});

describe('Delete', () => {
	test('default delete: the output carries the page as it was (content included); the page leaves listing and sitemap but is kept on the server', async () => {
		const tenant = await ctx.tenant('deleter');
		await seedPages(tenant.client, [{ url: '/keep' }, { url: '/old-news', name: 'Old news' }]);
		await tenant.client.put('/api/content', {
			url: '/old-news',
			templates: [
				{ type: 'text', text: 'Yesterday' },
				{ type: 'image', src: 'https://x.example/a.jpg' },
			],
			banner: { title: 'Breaking' },
		});
		const before = await readPage(tenant.client, '/old-news');

		const result = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byUrl('/old-news'),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toEqual({ ...before, deleted: true, permanently: false });
		expect(result.items[0].json.templates).toHaveLength(2);

		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/keep']);
		const sitemap = await tenant.client.post('/api/sitemap', {});
		expect(sitemap.data.pages.map((page: { url: string }) => page.url)).toEqual(['/keep']);
		// Kept on the server (archived), not erased.
		expect(storedPageRows(ctx.site, 'deleter')).toEqual([
			{ url: '/keep', deleted_at: null },
			{ url: '/old-news', deleted_at: expect.any(String) },
		]);
	});

	test('permanent delete erases the page, and also outputs it as it was', async () => {
		const tenant = await ctx.tenant('eraser');
		await seedPages(tenant.client, [{ url: '/secret', name: 'Secret', locale: 'en', draft: true }]);
		const before = await readPage(tenant.client, '/secret');

		const result = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byList('/secret'),
			permanently: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ ...before, deleted: true, permanently: true });
		expect(storedPageRows(ctx.site, 'eraser')).toEqual([]);
	});

	test('deleting a missing page fails the item and deletes nothing; with continue on fail the others go on', async () => {
		const tenant = await ctx.tenant('delete-missing');
		await seedPages(tenant.client, [{ url: '/a' }, { url: '/b' }, { url: '/c' }]);

		const missing = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byUrl('/nope'),
		});
		expect(missing.items).toHaveLength(0);
		expect(missing.error?.message).toBe('No page with url "/nope"');
		expect(storedPageRows(ctx.site, 'delete-missing').every((row) => row.deleted_at === null)).toBe(
			true,
		);

		const mixed = await tenant.run(
			{ resource: 'page', operation: 'delete', url: byUrl('={{ $json.url }}') },
			{
				input: [{ json: { url: '/a' } }, { json: { url: '/missing' } }, { json: { url: '/c' } }],
				continueOnFail: true,
			},
		);
		expect(mixed.items.map((item) => [item.json.error ?? item.json.url, item.pairedItem])).toEqual([
			['/a', { item: 0 }],
			['No page with url "/missing"', { item: 1 }],
			['/c', { item: 2 }],
		]);
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/b']);
	});

	test('a url whose only page was deleted before is "missing": a second delete fails', async () => {
		const tenant = await ctx.tenant('delete-twice');
		await seedPages(tenant.client, [{ url: '/once' }]);
		expect(
			(await tenant.run({ resource: 'page', operation: 'delete', url: byUrl('/once') })).error,
		).toBeUndefined();
		const again = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byUrl('/once'),
			permanently: true,
		});
		expect(again.error?.message).toBe('No page with url "/once"');
		// The archived row is still there: the failed read stopped the permanent delete.
		expect(storedPageRows(ctx.site, 'delete-twice')).toEqual([
			{ url: '/once', deleted_at: expect.any(String) },
		]);
	});
});
