/**
 * Tenant surface: pages (list, filters, pagination, create, default and permanent delete), content,
 * sitemap and notifications.
 */
import {
	type Harness,
	type Tenant,
	allPages,
	client,
	createPage,
	createTenant,
	detailFields,
	expectError,
	expectOk,
	issueToken,
	pageBody,
	useServer,
} from '../helpers';

let h: Harness;
useServer((started) => (h = started));

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

describe('POST /api/page', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
	});

	it('creates a page and returns it whole', async () => {
		const res = await t.api.post(
			'/api/page',
			pageBody('/about-us', { locale: 'en', draft: false }),
		);
		expect(res.status).toBe(201);
		expect(res.data.message).toBe('Page created successfully.');
		expect(res.data.page).toEqual(
			expect.objectContaining({
				url: '/about-us',
				name: 'Page /about-us',
				locale: 'en',
				meta_title: 'Title /about-us',
				meta_description: 'Description /about-us',
				draft: false,
				templates: [],
				banner: null,
				created_at: expect.stringMatching(ISO),
				updated_at: expect.stringMatching(ISO),
			}),
		);
	});

	it('needs only name, url and locale', async () => {
		const res = await t.api.post('/api/page', { name: 'Minimal', url: '/minimal', locale: 'de' });
		expect(res.status).toBe(201);
		expect(res.data.page).toEqual(
			expect.objectContaining({ url: '/minimal', name: 'Minimal', locale: 'de' }),
		);
		expect(res.data.page.draft).toBe(false);
	});

	it('accepts draft as 0/1 and answers it as a boolean', async () => {
		const one = await t.api.post('/api/page', pageBody('/draft-one', { draft: 1 }));
		expect(one.status).toBe(201);
		expect(one.data.page.draft).toBe(true);
		const zero = await t.api.post('/api/page', pageBody('/draft-zero', { draft: 0 }));
		expect(zero.status).toBe(201);
		expect(zero.data.page.draft).toBe(false);
	});

	it('answers 409 conflict for a url already taken', async () => {
		await createPage(t, '/taken');
		expectError(
			await t.api.post('/api/page', pageBody('/taken', { name: 'Other' })),
			409,
			'conflict',
		);
	});

	it('lists every bad field at once', async () => {
		const res = await t.api.post('/api/page', { name: 5, url: 7, locale: ['en'], draft: 'maybe' });
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(expect.arrayContaining(['name', 'url', 'locale', 'draft']));
	});

	it('lists every missing required field', async () => {
		const res = await t.api.post('/api/page', { meta_title: 'only this' });
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(expect.arrayContaining(['name', 'url', 'locale']));
	});

	it('rejects a url that is not a site path', async () => {
		const res = await t.api.post('/api/page', pageBody('about us'));
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('url');
	});

	it('rejects a body that is a JSON array', async () => {
		expectError(await t.api.post('/api/page', [pageBody('/array')]), 400, 'validation_failed');
	});
});

describe('GET /api/pages', () => {
	it('lists nothing for a new tenant', async () => {
		const t = await createTenant(h);
		const res = await t.api.get('/api/pages', { params: { page: 1, per_page: 10 } });
		expect(res.status).toBe(200);
		expect(res.data.data).toEqual([]);
		expect(res.data.meta).toEqual(expect.objectContaining({ page: 1, per_page: 10, total: 0 }));
		expect(res.data.meta.last_page).toBeLessThanOrEqual(1);
	});

	it('works without query parameters', async () => {
		const t = await createTenant(h);
		await createPage(t, '/one');
		const res = await t.api.get('/api/pages');
		expect(res.status).toBe(200);
		expect(res.data.data.map((p: any) => p.url)).toEqual(['/one']);
		expect(res.data.meta).toEqual(
			expect.objectContaining({ page: 1, per_page: expect.any(Number), total: 1, last_page: 1 }),
		);
		expect(res.data.data[0]).toEqual(
			expect.objectContaining({ templates: [], banner: null, created_at: expect.any(String) }),
		);
	});

	describe('pagination', () => {
		let t: Tenant;
		const urls = Array.from({ length: 7 }, (_, i) => `/p-${i}`);
		beforeAll(async () => {
			t = await createTenant(h);
			for (const url of urls) await createPage(t, url);
		});

		it('pages through 7 items 3 at a time: total 7, last_page 3, nothing missing or doubled', async () => {
			const seen: string[] = [];
			for (const page of [1, 2, 3]) {
				const res = await t.api.get('/api/pages', { params: { page, per_page: 3 } });
				expect(res.status).toBe(200);
				expect(res.data.meta).toEqual({ page, per_page: 3, total: 7, last_page: 3 });
				expect(res.data.data).toHaveLength(page === 3 ? 1 : 3);
				seen.push(...res.data.data.map((p: any) => p.url));
			}
			expect(seen.sort()).toEqual([...urls].sort());
		});

		it('exactly per_page items: one full page, last_page 1', async () => {
			const res = await t.api.get('/api/pages', { params: { page: 1, per_page: 7 } });
			expect(res.status).toBe(200);
			expect(res.data.data).toHaveLength(7);
			expect(res.data.meta).toEqual({ page: 1, per_page: 7, total: 7, last_page: 1 });
		});

		it('a page beyond last_page is empty and still reports total and last_page', async () => {
			const res = await t.api.get('/api/pages', { params: { page: 5, per_page: 3 } });
			expect(res.status).toBe(200);
			expect(res.data.data).toEqual([]);
			expect(res.data.meta).toEqual({ page: 5, per_page: 3, total: 7, last_page: 3 });
		});

		it('per_page 101 answers 400 validation_failed naming per_page', async () => {
			const res = await t.api.get('/api/pages', { params: { per_page: 101 } });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('per_page');
		});

		it('rejects page 0, per_page 0 and non-numbers, listing each', async () => {
			const res = await t.api.get('/api/pages', { params: { page: 0, per_page: 0 } });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(
				expect.arrayContaining(['page', 'per_page']),
			);
			const res2 = await t.api.get('/api/pages', { params: { page: 'abc' } });
			expect(detailFields(expectError(res2, 400, 'validation_failed'))).toContain('page');
		});
	});

	it('per_page 100 returns 100 of 101 pages, last_page 2', async () => {
		const t = await createTenant(h);
		for (let i = 0; i < 101; i++) await createPage(t, `/bulk-${i}`);
		const first = await t.api.get('/api/pages', { params: { page: 1, per_page: 100 } });
		expect(first.status).toBe(200);
		expect(first.data.data).toHaveLength(100);
		expect(first.data.meta).toEqual({ page: 1, per_page: 100, total: 101, last_page: 2 });
		const second = await t.api.get('/api/pages', { params: { page: 2, per_page: 100 } });
		expect(second.data.data).toHaveLength(1);
		const all = [...first.data.data, ...second.data.data].map((p: any) => p.url);
		expect(new Set(all).size).toBe(101);
	});

	describe('filters', () => {
		let t: Tenant;
		beforeAll(async () => {
			t = await createTenant(h);
			await createPage(t, '/en-live', { locale: 'en', draft: false });
			await createPage(t, '/en-draft', { locale: 'en', draft: true });
			await createPage(t, '/de-live', { locale: 'de', draft: false });
			await createPage(t, '/de-draft', { locale: 'de', draft: true });
		});

		it('filters by url', async () => {
			const res = await t.api.get('/api/pages', { params: { url: '/de-live' } });
			expect(res.status).toBe(200);
			expect(res.data.data.map((p: any) => p.url)).toEqual(['/de-live']);
			expect(res.data.meta.total).toBe(1);
			const none = await t.api.get('/api/pages', { params: { url: '/nope' } });
			expect(none.data.data).toEqual([]);
			expect(none.data.meta.total).toBe(0);
		});

		it('filters by locale', async () => {
			const res = await t.api.get('/api/pages', { params: { locale: 'de' } });
			expect(res.data.data.map((p: any) => p.url).sort()).toEqual(['/de-draft', '/de-live']);
			expect(res.data.meta.total).toBe(2);
		});

		it('filters by draft (true/false and 1/0)', async () => {
			const drafts = await t.api.get('/api/pages', { params: { draft: true } });
			expect(drafts.status).toBe(200);
			expect(drafts.data.data.map((p: any) => p.url).sort()).toEqual(['/de-draft', '/en-draft']);
			const live = await t.api.get('/api/pages', { params: { draft: false } });
			expect(live.data.data.map((p: any) => p.url).sort()).toEqual(['/de-live', '/en-live']);
			const one = await t.api.get('/api/pages', { params: { draft: 1 } });
			expect(one.data.data.map((p: any) => p.url).sort()).toEqual(['/de-draft', '/en-draft']);
		});

		it('combines filters', async () => {
			const res = await t.api.get('/api/pages', { params: { locale: 'en', draft: false } });
			expect(res.data.data.map((p: any) => p.url)).toEqual(['/en-live']);
		});
	});

	describe('search (a fragment of name or url)', () => {
		let t: Tenant;
		beforeAll(async () => {
			t = await createTenant(h);
			await createPage(t, '/about-us', { name: 'Who We Are' });
			await createPage(t, '/team', { name: 'About the Team' });
			await createPage(t, '/contact', { name: 'Contact' });
			await createPage(t, '/100%_off', { name: 'Sale' });
			for (let i = 1; i <= 5; i++)
				await createPage(t, `/news/item-${i}`, { name: `News ${i}`, locale: i % 2 ? 'en' : 'de' });
		});

		it('matches the url or the name, case-insensitive', async () => {
			const res = await t.api.get('/api/pages', { params: { search: 'ABOUT' } });
			expect(res.status).toBe(200);
			expect(res.data.data.map((p: any) => p.url)).toEqual(['/about-us', '/team']);
			expect(res.data.meta.total).toBe(2);
		});

		it('takes % and _ literally', async () => {
			const res = await t.api.get('/api/pages', { params: { search: '%_' } });
			expect(res.data.data.map((p: any) => p.url)).toEqual(['/100%_off']);
		});

		it('pages the matches and combines with the other filters', async () => {
			const first = await t.api.get('/api/pages', {
				params: { search: 'news', per_page: 2, page: 1 },
			});
			expect(first.data.data.map((p: any) => p.url)).toEqual(['/news/item-1', '/news/item-2']);
			expect(first.data.meta).toMatchObject({ total: 5, last_page: 3 });
			const last = await t.api.get('/api/pages', {
				params: { search: 'news', per_page: 2, page: 3 },
			});
			expect(last.data.data.map((p: any) => p.url)).toEqual(['/news/item-5']);
			const german = await t.api.get('/api/pages', { params: { search: 'news', locale: 'de' } });
			expect(german.data.data.map((p: any) => p.url)).toEqual(['/news/item-2', '/news/item-4']);
		});

		it('an empty fragment lists every page; no match is an empty page', async () => {
			const all = await t.api.get('/api/pages', { params: { search: '' } });
			expect(all.data.meta.total).toBe(9);
			const none = await t.api.get('/api/pages', { params: { search: 'zzz' } });
			expect(none.data).toMatchObject({ data: [], meta: { total: 0 } });
		});

		it('a fragment over 255 characters is a 400 naming search', async () => {
			const res = await t.api.get('/api/pages', { params: { search: 'x'.repeat(256) } });
			expect(res.status).toBe(400);
			expect(JSON.stringify(res.data.details)).toContain('search');
		});

		it('is documented in the OpenAPI document', async () => {
			const doc = await t.api.get('/openapi.json');
			const params = doc.data.paths['/api/pages'].get.parameters.map((p: any) => p.name);
			expect(params).toContain('search');
		});
	});
});

describe('DELETE /api/page', () => {
	it('default delete: gone from listings, 200 with the contract message', async () => {
		const t = await createTenant(h);
		await createPage(t, '/keep');
		await createPage(t, '/soft');
		const res = await t.api.delete('/api/page', { data: { url: '/soft' } });
		expect(res.status).toBe(200);
		expect(res.data).toEqual(expect.objectContaining({ message: 'Page deleted successfully.' }));
		const urls = (await allPages(t)).map((p) => p.url);
		expect(urls).toEqual(['/keep']);
		const filtered = await t.api.get('/api/pages', { params: { url: '/soft' } });
		expect(filtered.data.data).toEqual([]);
		expect(filtered.data.meta.total).toBe(0);
	});

	it('permanent delete erases the page: listing empty, the url can be created anew', async () => {
		const t = await createTenant(h);
		await createPage(t, '/hard', { name: 'Before' });
		const res = await t.api.delete('/api/page', { data: { url: '/hard', permanently: 1 } });
		expect(res.status).toBe(200);
		expect(res.data).toEqual(expect.objectContaining({ message: 'Page deleted successfully.' }));
		expect(await allPages(t)).toEqual([]);
		const again = await t.api.post('/api/page', pageBody('/hard', { name: 'After' }));
		expect(again.status).toBe(201);
		expect(again.data.page.name).toBe('After');
		expect(again.data.page.templates).toEqual([]);
	});

	it('answers 404 for an unknown url', async () => {
		const t = await createTenant(h);
		expectError(await t.api.delete('/api/page', { data: { url: '/nope' } }), 404, 'not_found');
		expectError(
			await t.api.delete('/api/page', { data: { url: '/nope', permanently: 1 } }),
			404,
			'not_found',
		);
	});

	it('validates url and permanently', async () => {
		const t = await createTenant(h);
		const res = await t.api.delete('/api/page', { data: { permanently: 'yes' } });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(
			expect.arrayContaining(['url', 'permanently']),
		);
	});
});

describe('PUT /api/content', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
	});

	it('sets templates and banner and returns the page', async () => {
		const created = await createPage(t, '/content');
		const templates = [
			{ type: 'hero', title: 'Welcome', items: [1, 2, 3] },
			{ type: 'text', body: 'Hello <b>world</b>', nested: { deep: [{ a: null }] } },
		];
		const banner = { image: 'https://cdn.example.com/b.png', text: 'Sale' };
		const res = await t.api.put('/api/content', { url: '/content', templates, banner });
		expect(res.status).toBe(200);
		expect(res.data.message).toBe('Content updated successfully.');
		expect(res.data.page).toEqual(expect.objectContaining({ url: '/content', templates, banner }));
		expect(Date.parse(res.data.page.updated_at)).toBeGreaterThanOrEqual(
			Date.parse(created.updated_at),
		);

		const listed = await t.api.get('/api/pages', { params: { url: '/content' } });
		expect(listed.data.data[0]).toEqual(expect.objectContaining({ templates, banner }));
	});

	it('replaces templates in order and accepts banner null', async () => {
		await createPage(t, '/content-2');
		expectOk(
			await t.api.put('/api/content', {
				url: '/content-2',
				templates: [{ a: 1 }],
				banner: { x: 1 },
			}),
		);
		const res = await t.api.put('/api/content', {
			url: '/content-2',
			templates: [{ b: 2 }, { c: 3 }],
			banner: null,
		});
		expect(res.status).toBe(200);
		expect(res.data.page.templates).toEqual([{ b: 2 }, { c: 3 }]);
		expect(res.data.page.banner).toBeNull();
	});

	it('answers 404 for an unknown page url', async () => {
		expectError(
			await t.api.put('/api/content', { url: '/missing', templates: [] }),
			404,
			'not_found',
		);
	});

	it('lists every bad field: url missing, templates not an array, banner not an object', async () => {
		const res = await t.api.put('/api/content', { templates: 'nope', banner: 'nope' });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(
			expect.arrayContaining(['url', 'templates', 'banner']),
		);
	});

	it('rejects templates that are not JSON objects', async () => {
		await createPage(t, '/content-3');
		const res = await t.api.put('/api/content', { url: '/content-3', templates: [1, 'two'] });
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields.some((f) => f.startsWith('templates'))).toBe(true);
	});
});

describe('POST /api/sitemap', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
		await createPage(t, '/', { locale: 'en', name: 'Home' });
		await createPage(t, '/ueber-uns', { locale: 'de', name: 'Über uns' });
		await createPage(t, '/draft', { locale: 'en', draft: true });
		await createPage(t, '/soft-deleted', { locale: 'en' });
		await createPage(t, '/hard-deleted', { locale: 'de' });
		expectOk(await t.api.delete('/api/page', { data: { url: '/soft-deleted' } }));
		expectOk(await t.api.delete('/api/page', { data: { url: '/hard-deleted', permanently: 1 } }));
	});

	it('lists published pages only: no drafts, nothing deleted', async () => {
		const res = await t.api.post('/api/sitemap', {});
		expect(res.status).toBe(200);
		expect(res.data.generated_at).toMatch(ISO);
		expect(res.data.pages.map((p: any) => p.url).sort()).toEqual(['/', '/ueber-uns']);
		const home = res.data.pages.find((p: any) => p.url === '/');
		expect(home).toEqual(
			expect.objectContaining({
				url: '/',
				name: 'Home',
				locale: 'en',
				updated_at: expect.stringMatching(ISO),
			}),
		);
	});

	it('filters by locale', async () => {
		const res = await t.api.post('/api/sitemap', { locale: 'de' });
		expect(res.status).toBe(200);
		expect(res.data.pages).toEqual([
			expect.objectContaining({ url: '/ueber-uns', name: 'Über uns', locale: 'de' }),
		]);
		const none = await t.api.post('/api/sitemap', { locale: 'fr' });
		expect(none.data.pages).toEqual([]);
	});

	it('rejects a non-string locale', async () => {
		const res = await t.api.post('/api/sitemap', { locale: 5 });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('locale');
	});

	it('says tenant_id (extension): the tenant the token reached, also with a locale filter', async () => {
		const other = await createTenant(h);
		expect((await t.api.post('/api/sitemap', {})).data.tenant_id).toBe(t.id);
		expect((await t.api.post('/api/sitemap', { locale: 'fr' })).data.tenant_id).toBe(t.id);
		const empty = expectOk(await other.api.post('/api/sitemap', {}));
		expect(empty).toEqual({
			generated_at: expect.stringMatching(ISO),
			tenant_id: other.id,
			pages: [],
		});
	});

	it('tenant_id follows a rename: a token issued for the new id names it', async () => {
		const renamed = await createTenant(h);
		await createPage(renamed, '/kept');
		const newId = `${renamed.id}-new`;
		expect((await renamed.api.post('/api/sitemap', {})).data.tenant_id).toBe(renamed.id);
		expectOk(await h.admin.put('/api/tenant', { old_id: renamed.id, id: newId }));
		// The token issued for the old name stops (central.test.ts); a new one names the new id.
		expect((await renamed.api.post('/api/sitemap', {})).status).toBe(401);
		const fresh = client(h.url, await issueToken(h, newId));
		const after = expectOk(await fresh.post('/api/sitemap', {}));
		expect(after.tenant_id).toBe(newId);
		expect(after.pages.map((p: any) => p.url)).toEqual(['/kept']);
	});
});

describe('POST /api/notifications', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
	});

	it('saves a notification and upserts by id', async () => {
		const first = await t.api.post('/api/notifications', {
			id: 'job-1',
			message: 'Started',
			status: 'info',
		});
		expect(first.status).toBe(200);
		expect(first.data.message).toBe('Notification saved.');
		expect(first.data.notification).toEqual(
			expect.objectContaining({ id: 'job-1', message: 'Started', status: 'info' }),
		);
		const second = await t.api.post('/api/notifications', {
			id: 'job-1',
			message: 'Done',
			status: 'success',
		});
		expect(second.status).toBe(200);
		expect(second.data.notification).toEqual(
			expect.objectContaining({ id: 'job-1', message: 'Done', status: 'success' }),
		);
		// one notification for the job, not two (read through the GET /api/notifications extension)
		const list = expectOk(await t.api.get('/api/notifications')).data;
		const forJob = list.filter((n: any) => n.id === 'job-1');
		expect(forJob).toHaveLength(1);
		expect(forJob[0]).toEqual(expect.objectContaining({ message: 'Done', status: 'success' }));
	});

	it.each(['info', 'success', 'warning', 'error'])('accepts status %s', async (status) => {
		const res = await t.api.post('/api/notifications', { id: `s-${status}`, message: 'm', status });
		expect(res.status).toBe(200);
		expect(res.data.notification.status).toBe(status);
	});

	it('rejects an unknown status and lists every missing field', async () => {
		const bad = await t.api.post('/api/notifications', { id: 'x', message: 'm', status: 'fatal' });
		expect(detailFields(expectError(bad, 400, 'validation_failed'))).toContain('status');
		const empty = await t.api.post('/api/notifications', {});
		expect(detailFields(expectError(empty, 400, 'validation_failed'))).toEqual(
			expect.arrayContaining(['id', 'message', 'status']),
		);
	});
});
