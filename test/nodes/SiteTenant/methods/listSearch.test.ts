/** Tenant node: the editor's list search (resource locators' lists) through the node's transport. */
import { listSearch } from '../../../harness/list-search';
import { seedPages, useNodeTestContext, type TenantContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('list search', () => {
	let tenant: TenantContext;
	// 60 news pages (more than one list page of 50) and a few others.
	const news = Array.from({ length: 60 }, (_, i) => ({
		url: `/news/n-${String(i).padStart(2, '0')}`,
		name: `News ${i}`,
	}));
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
		expect(second.results.map((item) => item.value)).toEqual(
			news.slice(50).map((page) => page.url),
		);
		expect(second.paginationToken).toBeUndefined();
		const everything = await searchPages();
		expect(everything.results[0].value).toBe('/about-us');
		expect(everything.paginationToken).toBe('2');
	});

	test('goes through the transport: a wrong token fails with the server message and without the token', async () => {
		const wrong = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: 'stt_not-a-real-token',
		});
		const failure = listSearch(ctx.runner, {
			type: 'siteTenant',
			method: 'searchPages',
			parameters: { resource: 'page', operation: 'get' },
			credentials: wrong,
		});
		await expect(failure).rejects.toMatchObject({ httpCode: '401' });
		const error = await failure.catch((caught: unknown) => caught);
		expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(
			'stt_not-a-real-token',
		);
	});

	test('variables: filtered by a key fragment', async () => {
		await tenant.client.put('/api/variables', { key: 'newsletter_list', value: 'weekly' });
		await tenant.client.put('/api/variables', { key: 'colour', value: 'blue' });
		const result = await listSearch(ctx.runner, {
			type: 'siteTenant',
			method: 'searchVariables',
			parameters: { resource: 'variable', operation: 'delete' },
			credentials: tenant.credential,
			filter: 'NEWS',
		});
		expect(result.results).toEqual([
			{ name: 'newsletter_list', value: 'newsletter_list', description: 'weekly' },
		]);
	});
});
