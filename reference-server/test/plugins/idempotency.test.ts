/**
 * Idempotency-Key (extension): the first response is replayed for a repeat; the same key with a
 * different body answers 422 idempotency_key_reused.
 */
import { randomBytes } from 'node:crypto';

import { STORED_ANSWER_CAP } from '../../src/plugins/idempotency';

import {
	type Harness,
	type Tenant,
	allPages,
	createPage,
	createTenant,
	expectError,
	expectOk,
	uniqueId,
	useServer,
} from '../helpers';

let h: Harness;
let t: Tenant;

useServer((started) => (h = started));

beforeAll(async () => {
	t = await createTenant(h);
});

const newKey = () => `key-${randomBytes(8).toString('hex')}`;
const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

describe('Idempotency-Key', () => {
	it('POST twice with the same key: one page, the same response twice', async () => {
		const key = newKey();
		const body = { name: 'Once', url: '/once', locale: 'en' };
		const first = await t.api.post('/api/page', body, withKey(key));
		const second = await t.api.post('/api/page', body, withKey(key));
		expect(first.status).toBe(201);
		expect(second.status).toBe(201);
		expect(second.data).toEqual(first.data);
		const pages = (await allPages(t)).filter((p) => p.url === '/once');
		expect(pages).toHaveLength(1);
		// without a key the same request is a plain duplicate
		expectError(await t.api.post('/api/page', body), 409, 'conflict');
	});

	it('the same key with a different body answers 422 idempotency_key_reused and does nothing', async () => {
		const key = newKey();
		expect(
			(await t.api.post('/api/page', { name: 'A', url: '/reuse-a', locale: 'en' }, withKey(key)))
				.status,
		).toBe(201);
		const res = await t.api.post(
			'/api/page',
			{ name: 'B', url: '/reuse-b', locale: 'en' },
			withKey(key),
		);
		expectError(res, 422, 'idempotency_key_reused');
		expect((await t.api.get('/api/pages', { params: { url: '/reuse-b' } })).data.data).toEqual([]);
	});

	it('the same key on another call with a different body answers 422', async () => {
		const key = newKey();
		expect(
			(
				await t.api.post(
					'/api/notifications',
					{ id: 'k', message: 'm', status: 'info' },
					withKey(key),
				)
			).status,
		).toBe(200);
		const res = await t.api.post('/api/settings', { noindex: 1 }, withKey(key));
		expectError(res, 422, 'idempotency_key_reused');
	});

	it('replays an error response too (a 409 stays a 409)', async () => {
		await createPage(t, '/exists');
		const key = newKey();
		const body = { name: 'X', url: '/exists', locale: 'en' };
		const first = await t.api.post('/api/page', body, withKey(key));
		expectError(first, 409, 'conflict');
		// the page is now deleted: without replay a new request would succeed
		expectOk(await t.api.delete('/api/page', { data: { url: '/exists', permanently: 1 } }));
		const second = await t.api.post('/api/page', body, withKey(key));
		expect(second.status).toBe(409);
		expect(second.data).toEqual(first.data);
	});

	it('PUT replay: content updated once, the response repeated', async () => {
		await createPage(t, '/put-idem');
		const key = newKey();
		const body = { url: '/put-idem', templates: [{ v: 1 }] };
		const first = await t.api.put('/api/content', body, withKey(key));
		expect(first.status).toBe(200);
		const second = await t.api.put('/api/content', body, withKey(key));
		expect(second.status).toBe(200);
		expect(second.data).toEqual(first.data);
		expect(second.data.page.updated_at).toBe(first.data.page.updated_at);
	});

	it('DELETE replay: the second delete with the key answers 200, not 404', async () => {
		await createPage(t, '/del-idem');
		const key = newKey();
		const first = await t.api.delete('/api/page', { data: { url: '/del-idem' }, ...withKey(key) });
		expect(first.status).toBe(200);
		const second = await t.api.delete('/api/page', { data: { url: '/del-idem' }, ...withKey(key) });
		expect(second.status).toBe(200);
		expect(second.data).toEqual(first.data);
		// without the key the page is simply not there
		expectError(await t.api.delete('/api/page', { data: { url: '/del-idem' } }), 404, 'not_found');
	});

	it('central surface: tenant create replayed instead of 409', async () => {
		const key = newKey();
		const id = uniqueId('idem');
		const first = await h.admin.post('/api/tenant', { id }, withKey(key));
		const second = await h.admin.post('/api/tenant', { id }, withKey(key));
		expect(first.status).toBe(200);
		expect(second.status).toBe(200);
		expect(second.data).toEqual({ message: 'Tenant created successfully.' });
		const other = await h.admin.post('/api/tenant', { id: uniqueId('idem') }, withKey(key));
		expectError(other, 422, 'idempotency_key_reused');
	});

	it('keys are per caller: admin and tenant keys do not collide', async () => {
		const key = newKey();
		const tt = await createTenant(h);
		expect(
			(
				await tt.api.post(
					'/api/notifications',
					{ id: 'x', message: 'm', status: 'info' },
					withKey(key),
				)
			).status,
		).toBe(200);
		const res = await h.admin.post('/api/tenant', { id: uniqueId('per-caller') }, withKey(key));
		expect(res.status).toBe(200);
	});

	it('GET ignores the header', async () => {
		const key = newKey();
		const tt = await createTenant(h);
		const first = await tt.api.get('/api/pages', withKey(key));
		await createPage(tt, '/after-get');
		const second = await tt.api.get('/api/pages', withKey(key));
		expect(first.data.meta.total).toBe(0);
		expect(second.data.meta.total).toBe(1);
	});
});

/** Rows stored for this tenant's keys, and their bytes. */
function storedFor(tt: Tenant): { rows: number; bytes: number } {
	const { store } = h.server.app.site;
	const pk = store.tenants.findById(tt.id)!.pk;
	return store.db
		.prepare(
			'SELECT COUNT(*) AS rows, COALESCE(SUM(LENGTH(body)), 0) AS bytes FROM idempotency_keys WHERE scope = ?',
		)
		.get(`tenant:${pk}`) as { rows: number; bytes: number };
}

describe('what is stored for replay', () => {
	it('20 POST /api/sitemap with distinct keys store nothing; each repeat reads afresh', async () => {
		const tt = await createTenant(h);
		for (let i = 0; i < 50; i++) await createPage(tt, `/sitemap-${i}`);
		const key = newKey();
		for (let i = 0; i < 20; i++)
			expect((await tt.api.post('/api/sitemap', {}, withKey(`${key}-${i}`))).status).toBe(200);
		expect(storedFor(tt)).toEqual({ rows: 0, bytes: 0 });
		// The same key again is not a replay: the new page is there.
		await createPage(tt, '/sitemap-late');
		const again = await tt.api.post('/api/sitemap', {}, withKey(`${key}-0`));
		expect(again.headers['idempotent-replayed']).toBeUndefined();
		expect(again.data.pages.map((p: { url: string }) => p.url)).toContain('/sitemap-late');
	});

	it('an answer over the cap keeps its status only: a repeat gets 409 replay_not_available and does nothing', async () => {
		const tt = await createTenant(h);
		const key = newKey();
		const templates = Array.from({ length: 64 }, () => ({
			text: 'x'.repeat(STORED_ANSWER_CAP / 32),
		}));
		await createPage(tt, '/big-answer');
		const body = { url: '/big-answer', templates };
		const first = await tt.api.put('/api/content', body, withKey(key));
		expect([first.status, first.data.details]).toEqual([200, undefined]);
		expect(JSON.stringify(first.data).length).toBeGreaterThan(STORED_ANSWER_CAP);
		expect(storedFor(tt)).toEqual({ rows: 1, bytes: 0 });
		const repeat = await tt.api.put('/api/content', body, withKey(key));
		expect(expectError(repeat, 409, 'replay_not_available').message).toMatch(/HTTP 200/);
		// A small answer is still kept whole and replayed.
		const small = newKey();
		const created = await tt.api.post(
			'/api/page',
			{ name: 'S', url: '/small', locale: 'en' },
			withKey(small),
		);
		const replayed = await tt.api.post(
			'/api/page',
			{ name: 'S', url: '/small', locale: 'en' },
			withKey(small),
		);
		expect(replayed.status).toBe(201);
		expect(replayed.data).toEqual(created.data);
	});
});
