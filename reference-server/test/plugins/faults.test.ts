/**
 * The two fault switches for reliability tests: --fault-rate (503 + Retry-After: 0 before doing
 * anything) and --fault-drop-rate (does the work, commits, then drops the connection).
 */
import type { AxiosResponse } from 'axios';
import { randomBytes } from 'node:crypto';

import {
	type Harness,
	client,
	createPage,
	createTenant,
	expectError,
	expectOk,
	makeDataDir,
	randomToken,
	removeDataDirs,
	restart,
	start,
	stop,
	stopAll,
	uniqueId,
} from '../helpers';

afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

/** Retries 503 answers and dropped connections, as a client following the contract would. */
async function retrying(
	fn: () => Promise<AxiosResponse>,
	tries = 60,
): Promise<{ res: AxiosResponse; attempts: number }> {
	let lastError: unknown;
	for (let attempt = 1; attempt <= tries; attempt++) {
		try {
			const res = await fn();
			if (res.status === 503) {
				expect(res.headers['retry-after']).toBe('0');
				continue;
			}
			return { res, attempts: attempt };
		} catch (error) {
			lastError = error;
			if (!isConnectionError(error)) throw error;
		}
	}
	throw new Error(`no answer after ${tries} tries: ${String(lastError)}`);
}

/** Asserts the request ends in a connection error, not in any HTTP answer. */
async function expectDropped(request: Promise<AxiosResponse>): Promise<void> {
	const outcome = await request.then(
		(res) => `answered ${res.status} ${JSON.stringify(res.data)}`,
		(error) => (isConnectionError(error) ? 'dropped' : `failed otherwise: ${String(error)}`),
	);
	expect(outcome).toBe('dropped');
}

function isConnectionError(error: any): boolean {
	return (
		['ECONNRESET', 'ECONNABORTED', 'EPIPE'].includes(error?.code) ||
		/socket hang up|ECONNRESET|aborted/i.test(String(error?.message))
	);
}

describe('--fault-rate 1', () => {
	it('answers every /api call 503 with Retry-After 0 and creates nothing; /health is fine', async () => {
		const dataDir = makeDataDir();
		const adminToken = randomToken('admin');
		const h = await start({ dataDir, adminToken, faultRate: 1 });
		const id = uniqueId('fault');

		const calls: Array<Promise<AxiosResponse>> = [
			h.admin.post('/api/tenant', { id }),
			h.admin.post('/api/tenant/token', { id }),
			h.admin.put('/api/tenant', { old_id: id, id: id + 'x' }),
			h.admin.delete('/api/tenant', { data: { id } }),
			client(h.url, 'any-token-at-all').get('/api/pages'),
			h.anon.post('/api/page', { name: 'x', url: '/x', locale: 'en' }),
			client(h.url, 'whatever').post('/api/settings', { noindex: 1 }),
			h.anon.get('/api/contact-form/deliveries'),
		];
		for (const res of await Promise.all(calls)) {
			expect(res.status).toBe(503);
			expect(res.headers['retry-after']).toBe('0');
			expectError(res, 503, 'unavailable');
		}

		const health = await h.anon.get('/health');
		expect(health.status).toBe(200);

		// nothing was created: on the same data directory without faults the id is free
		const clean = await restart(h, { faultRate: 0 });
		const created = await clean.admin.post('/api/tenant', { id });
		expect(created.status).toBe(200);
		await stop(clean);
	});
});

describe('--fault-drop-rate 1', () => {
	it('the client sees a dropped connection, but the work is committed', async () => {
		const dataDir = makeDataDir();
		const adminToken = randomToken('admin');
		const setup = await start({ dataDir, adminToken });
		const t = await createTenant(setup);
		await createPage(t, '/before');

		const dropping = await restart(setup, { faultDropRate: 1 });
		const api = client(dropping.url, t.token);
		await expectDropped(api.post('/api/page', { name: 'Dropped', url: '/dropped', locale: 'en' }));
		const newTenant = uniqueId('dropped');
		await expectDropped(dropping.admin.post('/api/tenant', { id: newTenant }));
		await expectDropped(api.post('/api/settings', { google_code: 'G-DROP' }));
		// /health is outside /api and answers
		expect((await dropping.anon.get('/health')).status).toBe(200);

		const clean = await restart(dropping, { faultDropRate: 0 });
		const api2 = client(clean.url, t.token);
		const list = expectOk(await api2.get('/api/pages', { params: { url: '/dropped' } }));
		expect(list.data).toHaveLength(1);
		expect(list.data[0].name).toBe('Dropped');
		expectError(await clean.admin.post('/api/tenant', { id: newTenant }), 409, 'conflict');
		const settings = expectOk(await api2.post('/api/settings', { noindex: 0 }));
		expect(settings.settings.google_code).toBe('G-DROP');
		await stop(clean);
	});
});

describe('faults at 0.3 + 0.3 with idempotency keys and retries', () => {
	let h: Harness;
	let tenantToken: string;
	beforeAll(async () => {
		const setup = await start();
		const t = await createTenant(setup);
		tenantToken = t.token;
		h = await restart(setup, { faultRate: 0.3, faultDropRate: 0.3 });
	});

	it('every page is created exactly once and every retry answers the first response', async () => {
		const api = client(h.url, tenantToken);
		const n = 12;
		let totalAttempts = 0;
		const firstBodies: unknown[] = [];
		for (let i = 0; i < n; i++) {
			const key = `chaos-${i}-${randomBytes(4).toString('hex')}`;
			const body = { name: `Chaos ${i}`, url: `/chaos-${i}`, locale: 'en' };
			const { res, attempts } = await retrying(() =>
				api.post('/api/page', body, { headers: { 'Idempotency-Key': key } }),
			);
			totalAttempts += attempts;
			expect(res.status).toBe(201);
			expect(res.data.page.url).toBe(`/chaos-${i}`);
			firstBodies.push(res.data);
		}
		// with 12 calls and about half of all requests failing, at least one retry is all but certain
		expect(totalAttempts).toBeGreaterThan(n);

		const { res: list } = await retrying(() =>
			api.get('/api/pages', { params: { per_page: 100 } }),
		);
		expect(list.status).toBe(200);
		const urls = list.data.data.map((p: any) => p.url).sort();
		expect(urls).toEqual(Array.from({ length: n }, (_, i) => `/chaos-${i}`).sort());
		expect(list.data.meta.total).toBe(n);
	});
});
