/**
 * The cache of rendered page listings (db/rendered-lists.ts): a listing answered from it is the same
 * text as a fresh one, every write to a tenant's pages shows in the very next listing, nothing is
 * cached from a transaction that may still roll back, and the cache keeps to its byte budget.
 */
import { parseCommandLine, resolveConfig, usage } from '../../src/config';
import { createPageRepository, type NewPage } from '../../src/db/pages';
import { openDatabase } from '../../src/db/open';
import { RenderedListCache } from '../../src/db/rendered-lists';
import {
	type Harness,
	type Tenant,
	createTenant,
	expectOk,
	pageBody,
	start,
	stopAll,
	removeDataDirs,
} from '../helpers';

let cached: Harness;
let uncached: Harness;
beforeAll(async () => {
	cached = await start();
	uncached = await start({ listCacheMb: 0 });
});
afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

/** A listing as raw text, and the same without the timestamps (which differ between two servers). */
async function listing(t: Tenant, params: Record<string, unknown> = {}) {
	const res = await t.api.get('/api/pages', { params, transformResponse: (text: string) => text });
	expect(res.status).toBe(200);
	const text = res.data as string;
	const body = JSON.parse(text) as { data: Array<Record<string, unknown>>; meta: unknown };
	const data = body.data.map(({ created_at: _c, updated_at: _u, ...rest }) => rest);
	return { text, comparable: { data, meta: body.meta } };
}

describe('listings with and without the cache', () => {
	it('give the same answers through creates, content updates, archive, permanent delete and url reuse', async () => {
		const a = await createTenant(cached);
		const b = await createTenant(uncached);
		const queries: Array<Record<string, unknown>> = [
			{},
			{ per_page: 2 },
			{ per_page: 2, page: 2 },
			{ locale: 'de' },
			{ draft: true },
			{ url: '/two' },
		];
		const steps: Array<(t: Tenant) => Promise<unknown>> = [
			(t) => t.api.post('/api/page', pageBody('/one')),
			(t) => t.api.post('/api/page', pageBody('/two', { locale: 'de' })),
			(t) => t.api.post('/api/page', pageBody('/three', { draft: true })),
			(t) =>
				t.api.put('/api/content', {
					url: '/two',
					templates: [{ hero: 'new' }],
					banner: { text: 'b' },
				}),
			(t) => t.api.delete('/api/page', { data: { url: '/one' } }),
			(t) => t.api.post('/api/page', pageBody('/one', { name: 'Reborn' })),
			(t) => t.api.delete('/api/page', { data: { url: '/three', permanently: 1 } }),
		];
		for (const step of steps) {
			const [resA, resB] = (await Promise.all([step(a), step(b)])) as Array<{ status: number }>;
			expect(resA.status).toBe(resB.status);
			for (const query of queries) {
				// Twice on the cached server: the second answer comes from the cache.
				const first = await listing(a, query);
				const again = await listing(a, query);
				const fresh = await listing(b, query);
				expect(again.text).toBe(first.text);
				expect(first.comparable).toEqual(fresh.comparable);
			}
		}
		const final = await listing(a);
		expect(final.comparable.data.map((p) => [p.url, p.name])).toEqual([
			['/two', 'Page /two'],
			['/one', 'Reborn'],
		]);
	});

	it("keeps tenants apart: one tenant's write does not change another's cached listing, nor leak into it", async () => {
		const a = await createTenant(cached);
		const b = await createTenant(cached);
		expectOk(await a.api.post('/api/page', pageBody('/a-only')), 201);
		const before = await listing(b);
		expectOk(await a.api.post('/api/page', pageBody('/a-second')), 201);
		const after = await listing(b);
		expect(after.text).toBe(before.text);
		expect(after.comparable.data).toEqual([]);
		expect((await listing(a)).comparable.data.map((p) => p.url)).toEqual(['/a-only', '/a-second']);
	});
});

describe('page repository', () => {
	const page = (url: string): NewPage => ({
		url,
		name: url,
		locale: 'en',
		meta_title: null,
		meta_description: null,
		draft: false,
	});

	it('caches nothing from an open transaction: a rolled-back create never shows in a listing', () => {
		const db = openDatabase(':memory:');
		db.prepare(
			"INSERT INTO tenants (id, fqdn, created_at, updated_at) VALUES ('t', NULL, 'x', 'x')",
		).run();
		const cache = new RenderedListCache(1024 * 1024);
		const pages = createPageRepository(db, cache);
		const render = (list: Array<{ url: string }>, total: number) =>
			JSON.stringify({ urls: list.map((p) => p.url), total });
		pages.create(1, page('/kept'));

		db.exec('BEGIN');
		pages.create(1, page('/rolled-back'));
		expect(JSON.parse(pages.listRendered(1, {}, 20, 0, render).toString())).toEqual({
			urls: ['/kept', '/rolled-back'],
			total: 2,
		});
		db.exec('ROLLBACK');

		expect(JSON.parse(pages.listRendered(1, {}, 20, 0, render).toString())).toEqual({
			urls: ['/kept'],
			total: 1,
		});
		expect(cache.bytes).toBeGreaterThan(0);
		db.close();
	});
});

describe('RenderedListCache', () => {
	const bytes = (n: number) => Buffer.alloc(n, 'x');

	it('keeps to its budget, least recently used first out; an entry over a quarter of it is not kept', () => {
		const cache = new RenderedListCache(10_000);
		for (let i = 0; i < 7; i += 1) cache.set(1, `k${i}`, bytes(1000));
		expect(cache.size).toBe(7);
		expect(cache.get(1, 'k0')?.length).toBe(1000);
		cache.set(2, 'k7', bytes(1000));
		expect(cache.bytes).toBeLessThanOrEqual(10_000);
		expect(cache.get(1, 'k0')).toBeDefined();
		expect(cache.get(1, 'k1')).toBeUndefined();
		expect(cache.get(2, 'k7')?.length).toBe(1000);
		cache.set(1, 'big', bytes(2501));
		expect(cache.get(1, 'big')).toBeUndefined();
	});

	it('counts keys: a stream of distinct long keys with tiny bodies stays within the budget', () => {
		const cache = new RenderedListCache(100_000);
		for (let i = 0; i < 10_000; i += 1)
			cache.set(1, `${'/a-long-filter-value'.repeat(10)}-${i}`, bytes(1));
		expect(cache.bytes).toBeLessThanOrEqual(100_000);
		// Each entry costs its ~400 bytes of key and its bookkeeping, not the 1 byte of its body.
		expect(cache.size).toBeLessThan(200);
		expect(cache.get(1, `${'/a-long-filter-value'.repeat(10)}-9999`)).toBeDefined();
	});

	it('forget drops one tenant and its bytes; replacing an entry counts it once', () => {
		const cache = new RenderedListCache(10_000);
		cache.set(1, 'a', bytes(100));
		cache.set(1, 'a', bytes(300));
		const one = cache.bytes;
		cache.set(2, 'a', bytes(50));
		expect(cache.size).toBe(2);
		expect(cache.bytes - one).toBe(one - 250);
		cache.forget(1);
		expect(cache.get(1, 'a')).toBeUndefined();
		expect(cache.get(2, 'a')?.length).toBe(50);
		expect(cache.bytes).toBe(one - 250);
	});

	it('with a budget of 0 keeps nothing', () => {
		const cache = new RenderedListCache(0);
		cache.set(1, 'a', bytes(1));
		expect(cache.get(1, 'a')).toBeUndefined();
		expect(cache.bytes).toBe(0);
	});
});

describe('--list-cache-mb', () => {
	it('takes a flag or its environment twin; 0 turns the cache off; a negative or non-number value is refused by name', () => {
		const parsed = parseCommandLine(['--list-cache-mb', '0'], {});
		expect(parsed).toEqual({ help: false, options: expect.objectContaining({ listCacheMb: 0 }) });
		const fromEnv = parseCommandLine([], { SITE_SERVER_LIST_CACHE_MB: '2.5' });
		expect(fromEnv).toEqual({
			help: false,
			options: expect.objectContaining({ listCacheMb: 2.5 }),
		});
		expect(resolveConfig({ adminToken: 'x' }).listCacheMb).toBe(16);
		expect(() => resolveConfig({ adminToken: 'x', listCacheMb: -1 })).toThrow(
			/listCacheMb must be 0 or more, got -1/,
		);
		expect(() => parseCommandLine(['--list-cache-mb', 'lots'], {})).toThrow(
			/--list-cache-mb: expected a number, got "lots"/,
		);
		expect(usage()).toMatch(/--list-cache-mb <value>.*\n.*SITE_SERVER_LIST_CACHE_MB/);
	});
});
