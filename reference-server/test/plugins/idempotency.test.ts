/**
 * Idempotency-Key (extension): the first response is replayed for a repeat; the same key with a
 * different body answers 422 idempotency_key_reused.
 */
import { randomBytes } from 'node:crypto';

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
