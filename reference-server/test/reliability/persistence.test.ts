/**
 * Storage on the data directory: data, tokens and pending deliveries survive a restart; tokens are
 * stored only as hashes.
 */
import FormData from 'form-data';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

import {
	type Harness,
	Receiver,
	absolute,
	client,
	createPage,
	createTenant,
	deliveryOf,
	expectError,
	expectOk,
	issueToken,
	listFiles,
	removeDataDirs,
	restart,
	setWebhook,
	start,
	stop,
	stopAll,
	submitForm,
	waitFor,
} from '../helpers';

const receivers: Receiver[] = [];

afterAll(async () => {
	await stopAll();
	await Promise.all(receivers.map((r) => r.stop()));
	removeDataDirs();
});

describe('restart on the same data directory', () => {
	it('keeps tenants, tokens, pages, content, settings, variables, notifications and assets', async () => {
		let h: Harness = await start({ enableVariables: true });
		const t = await createTenant(h, undefined, 'persist.example.com');
		await createPage(t, '/home', { name: 'Home' });
		await createPage(t, '/draft', { draft: true });
		await createPage(t, '/soft');
		expectOk(await t.api.delete('/api/page', { data: { url: '/soft' } }));
		expectOk(
			await t.api.put('/api/content', {
				url: '/home',
				templates: [{ type: 'hero' }],
				banner: { b: 1 },
			}),
		);
		expectOk(await t.api.post('/api/settings', { google_code: 'G-PERSIST', noindex: 1 }));
		expectOk(await t.api.put('/api/variables', { key: 'K', value: 'V' }));
		expectOk(await t.api.post('/api/notifications', { id: 'n1', message: 'm', status: 'info' }));
		const bytes = randomBytes(4096);
		const f = new FormData();
		f.append('file', bytes, { filename: 'p.bin', contentType: 'application/octet-stream' });
		const asset = expectOk(await t.api.post('/api/asset', f, { headers: f.getHeaders() }), 201);
		const revoked = await issueToken(h, t.id);
		const current = expectOk(
			await h.admin.post('/api/tenant/token', { id: t.id, revoke_previous: true }),
		).token;
		const assetPath = new URL(absolute(h, asset.url)).pathname;

		h = await restart(h);
		const api = client(h.url, current);

		// revoked tokens stay revoked, the current one works
		expectError(await client(h.url, t.token).get('/api/pages'), 401, 'unauthorized');
		expectError(await client(h.url, revoked).get('/api/pages'), 401, 'unauthorized');
		const list = expectOk(await api.get('/api/pages', { params: { per_page: 100 } }));
		expect(list.data.map((p: any) => p.url).sort()).toEqual(['/draft', '/home']);
		const home = list.data.find((p: any) => p.url === '/home');
		expect(home).toEqual(
			expect.objectContaining({ name: 'Home', templates: [{ type: 'hero' }], banner: { b: 1 } }),
		);
		expect(list.data.find((p: any) => p.url === '/draft').draft).toBe(true);

		const sitemap = expectOk(await api.post('/api/sitemap', {}));
		expect(sitemap.pages.map((p: any) => p.url)).toEqual(['/home']);

		const settings = expectOk(await api.post('/api/settings', { statistics_iframe: '<i>' }));
		expect(settings.settings).toEqual(
			expect.objectContaining({ google_code: 'G-PERSIST', noindex: 1 }),
		);
		expect(expectOk(await api.get('/api/variables')).data).toEqual([{ key: 'K', value: 'V' }]);

		const got = await client(h.url).get(assetPath, { responseType: 'arraybuffer' });
		expect(got.status).toBe(200);
		expect(Buffer.from(got.data).equals(bytes)).toBe(true);

		// the tenant id is still taken
		expectError(await h.admin.post('/api/tenant', { id: t.id }), 409, 'conflict');
		await stop(h);
	});

	it('tenant tokens are stored only as hashes: no token appears in any file of the data dir', async () => {
		let h: Harness = await start();
		const t = await createTenant(h);
		const more = [
			await issueToken(h, t.id, { expires_in: 3600 }),
			expectOk(
				await h.admin.post(
					'/api/tenant/token',
					{ id: t.id },
					{ headers: { 'Idempotency-Key': 'token-key-1' } },
				),
			).token,
		];
		// make sure the tokens are in use (and would be in any log or cache file)
		for (const token of [t.token, ...more])
			expect((await client(h.url, token).get('/api/pages')).status).toBe(200);
		const dir = h.dataDir;
		h = await restart(h);
		await stop(h);
		const files = listFiles(dir);
		expect(files.length).toBeGreaterThan(0);
		for (const file of files) {
			const content = fs.readFileSync(file);
			for (const token of [t.token, ...more]) {
				expect({ file, found: content.includes(Buffer.from(token, 'utf8')) }).toEqual({
					file,
					found: false,
				});
			}
		}
	});

	it('idempotency records survive a restart: a retry after the restart replays, not 409', async () => {
		let h: Harness = await start();
		const t = await createTenant(h);
		const key = `restart-${randomBytes(6).toString('hex')}`;
		const body = { name: 'Kept', url: '/kept', locale: 'en' };
		const first = await t.api.post('/api/page', body, { headers: { 'Idempotency-Key': key } });
		expect(first.status).toBe(201);
		h = await restart(h);
		const api = client(h.url, t.token);
		const second = await api.post('/api/page', body, { headers: { 'Idempotency-Key': key } });
		expect(second.status).toBe(201);
		expect(second.data).toEqual(first.data);
		const reused = await api.post(
			'/api/page',
			{ ...body, url: '/other' },
			{ headers: { 'Idempotency-Key': key } },
		);
		expectError(reused, 422, 'idempotency_key_reused');
		await stop(h);
	});

	it('a pending delivery survives a restart and completes when the receiver is back', async () => {
		const receiver = await new Receiver().start();
		receivers.push(receiver);
		receiver.defaultStatus = 503; // the receiver is "down"
		let h: Harness = await start({ deliveryRetryBaseMs: 20, deliveryMaxAttempts: 50 });
		const t = await createTenant(h);
		await setWebhook(t, `${receiver.url}/after-restart`, { 'X-Secret': 'persisted' });
		const sid = await submitForm(h, t.id, { message: 'survive' });
		await waitFor(
			async () => ((await deliveryOf(t, sid))?.attempts ?? 0) >= 1,
			5000,
			'first attempt',
		);
		expect((await deliveryOf(t, sid)).state).toBe('pending');

		await stop(h);
		const attemptsWhileDown = receiver.for(sid).length;
		receiver.defaultStatus = 200; // the receiver is back
		// nothing delivers while the server is down
		expect(receiver.for(sid).every((r) => r.status === 503)).toBe(true);

		h = await restart(h);
		const api = client(h.url, t.token);
		const d = await waitFor(
			async () => {
				const res = await api.get('/api/contact-form/deliveries');
				const x = res.data.data.find((y: any) => y.submission_id === sid);
				return x?.state === 'delivered' ? x : undefined;
			},
			10000,
			'delivered after restart',
		);
		expect(d.attempts).toBeGreaterThanOrEqual(Math.max(2, attemptsWhileDown));
		const ok = receiver.for(sid).filter((r) => r.status === 200);
		expect(ok).toHaveLength(1);
		expect(ok[0].url).toBe('/after-restart');
		expect(ok[0].headers['x-secret']).toBe('persisted');
		expect(ok[0].json).toEqual(
			expect.objectContaining({
				submission_id: sid,
				tenant_id: t.id,
				form: 'contact',
				fields: { message: 'survive' },
			}),
		);
		await stop(h);
	});

	it('a delivery submitted while the receiver is unreachable is not lost across two restarts', async () => {
		const receiver = await new Receiver().start();
		receivers.push(receiver);
		receiver.defaultStatus = 500;
		let h: Harness = await start({ deliveryRetryBaseMs: 20, deliveryMaxAttempts: 50 });
		const t = await createTenant(h);
		await setWebhook(t, receiver.url);
		const sids = [await submitForm(h, t.id, { n: 1 }), await submitForm(h, t.id, { n: 2 })];
		h = await restart(h);
		h = await restart(h);
		receiver.defaultStatus = 200;
		await waitFor(
			() => sids.every((sid) => receiver.for(sid).some((r) => r.status === 200)),
			10000,
			'both delivered',
		);
		const api = client(h.url, t.token);
		const list = expectOk(await api.get('/api/contact-form/deliveries')).data;
		for (const sid of sids)
			expect(list.find((d: any) => d.submission_id === sid).state).toBe('delivered');
		await stop(h);
	});
});
