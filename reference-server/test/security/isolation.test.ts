/**
 * Two tenants on one server never see or touch each other's data, on every call.
 */
import FormData from 'form-data';
import { randomBytes } from 'node:crypto';

import {
	type Harness,
	type Tenant,
	Receiver,
	absolute,
	allPages,
	client,
	createPage,
	createTenant,
	deliveries,
	expectError,
	expectOk,
	filesWithContent,
	setWebhook,
	submitForm,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
let a: Tenant;
let b: Tenant;
const receiver = new Receiver();

useServer((started) => (h = started), { enableVariables: true });

beforeAll(async () => {
	await receiver.start();
	a = await createTenant(h);
	b = await createTenant(h);
});

afterAll(async () => {
	await receiver.stop();
});

describe('isolation between two tenants', () => {
	it('pages: same url in both, each lists only its own', async () => {
		await createPage(a, '/shared', { name: 'A shared' });
		await createPage(b, '/shared', { name: 'B shared' });
		await createPage(a, '/only-a');

		const pa = await allPages(a);
		const pb = await allPages(b);
		expect(pa.map((p) => p.url).sort()).toEqual(['/only-a', '/shared']);
		expect(pb.map((p) => p.url)).toEqual(['/shared']);
		expect(pb[0].name).toBe('B shared');
		const filtered = await b.api.get('/api/pages', { params: { url: '/only-a' } });
		expect(filtered.data.data).toEqual([]);
	});

	it('pages: B cannot update content of or delete a page of A', async () => {
		await createPage(a, '/a-private');
		expectError(
			await b.api.put('/api/content', { url: '/a-private', templates: [{ x: 1 }] }),
			404,
			'not_found',
		);
		expectError(await b.api.delete('/api/page', { data: { url: '/a-private' } }), 404, 'not_found');
		expectError(
			await b.api.delete('/api/page', { data: { url: '/a-private', permanently: 1 } }),
			404,
			'not_found',
		);
		const still = await a.api.get('/api/pages', { params: { url: '/a-private' } });
		expect(still.data.data).toHaveLength(1);
		expect(still.data.data[0].templates).toEqual([]);
	});

	it('pages: deleting in B leaves the same url in A', async () => {
		await createPage(a, '/both');
		await createPage(b, '/both');
		expectOk(await b.api.delete('/api/page', { data: { url: '/both', permanently: 1 } }));
		const still = await a.api.get('/api/pages', { params: { url: '/both' } });
		expect(still.data.data).toHaveLength(1);
	});

	it('sitemap: only the own published pages', async () => {
		const tenantA = await createTenant(h);
		const tenantB = await createTenant(h);
		await createPage(tenantA, '/sm-a');
		await createPage(tenantB, '/sm-b');
		const sa = expectOk(await tenantA.api.post('/api/sitemap', {}));
		expect(sa.pages.map((p: any) => p.url)).toEqual(['/sm-a']);
	});

	it('settings: saved for A only', async () => {
		const sa = expectOk(await a.api.post('/api/settings', { google_code: 'G-AAAA', noindex: 1 }));
		expect(sa.settings.google_code).toBe('G-AAAA');
		const sb = expectOk(await b.api.post('/api/settings', { statistics_iframe: '<iframe b>' }));
		expect(sb.settings.google_code).not.toBe('G-AAAA');
		expect(sb.settings.noindex).toBe(0);
		const sa2 = expectOk(await a.api.post('/api/settings', { noindex: 1 }));
		expect(sa2.settings.statistics_iframe).not.toBe('<iframe b>');
	});

	it('variables: each tenant has its own, deleting in B leaves A', async () => {
		expectOk(await a.api.put('/api/variables', { key: 'COLOR', value: 'a-blue' }));
		expectOk(await b.api.put('/api/variables', { key: 'COLOR', value: 'b-red' }));
		expectOk(await a.api.put('/api/variables', { key: 'ONLY_A', value: '1' }));
		const va = expectOk(await a.api.get('/api/variables')).data;
		const vb = expectOk(await b.api.get('/api/variables')).data;
		expect(va.find((v: any) => v.key === 'COLOR').value).toBe('a-blue');
		expect(vb.find((v: any) => v.key === 'COLOR').value).toBe('b-red');
		expect(vb.some((v: any) => v.key === 'ONLY_A')).toBe(false);
		expectOk(await b.api.delete('/api/variables', { data: { key: 'COLOR' } }));
		const va2 = expectOk(await a.api.get('/api/variables')).data;
		expect(va2.find((v: any) => v.key === 'COLOR').value).toBe('a-blue');
	});

	it('assets: files are kept per tenant; deleting B removes none of A', async () => {
		const tenantA = await createTenant(h);
		const tenantB = await createTenant(h);
		const bytesA = randomBytes(1500);
		const bytesB = randomBytes(1500);
		const fa = new FormData();
		fa.append('file', bytesA, { filename: 'same.bin', contentType: 'application/octet-stream' });
		const fb = new FormData();
		fb.append('file', bytesB, { filename: 'same.bin', contentType: 'application/octet-stream' });
		const ra = expectOk(
			await tenantA.api.post('/api/asset', fa, { headers: fa.getHeaders() }),
			201,
		);
		const rb = expectOk(
			await tenantB.api.post('/api/asset', fb, { headers: fb.getHeaders() }),
			201,
		);
		expect(ra.url).not.toBe(rb.url);

		expectOk(await h.admin.delete('/api/tenant', { data: { id: tenantB.id } }));
		expect(filesWithContent(h.dataDir, bytesB)).toHaveLength(0);
		expect(filesWithContent(h.dataDir, bytesA)).toHaveLength(1);
		const got = await client(h.url).get(absolute(h, ra.url), { responseType: 'arraybuffer' });
		expect(got.status).toBe(200);
		expect(Buffer.from(got.data).equals(bytesA)).toBe(true);
	});

	it('notifications: the same id in two tenants are two notifications', async () => {
		const na = expectOk(
			await a.api.post('/api/notifications', { id: 'job', message: 'A', status: 'info' }),
		);
		const nb = expectOk(
			await b.api.post('/api/notifications', { id: 'job', message: 'B', status: 'error' }),
		);
		expect(na.notification.message).toBe('A');
		expect(nb.notification.message).toBe('B');
	});

	it('deliveries: each tenant lists only its own; headers of A never reach B', async () => {
		await setWebhook(a, `${receiver.url}/hook-a`, { 'X-Tenant-Secret': 'secret-a' });
		await setWebhook(b, `${receiver.url}/hook-b`, { 'X-Tenant-Secret': 'secret-b' });
		const sa = await submitForm(h, a.id, { who: 'a' });
		const sb = await submitForm(h, b.id, { who: 'b' });
		await waitFor(
			() => receiver.for(sa).length > 0 && receiver.for(sb).length > 0,
			5000,
			'both delivered',
		);

		const da = await deliveries(a);
		const db = await deliveries(b);
		expect(da.map((d) => d.submission_id)).toContain(sa);
		expect(da.map((d) => d.submission_id)).not.toContain(sb);
		expect(db.map((d) => d.submission_id)).toContain(sb);
		expect(db.map((d) => d.submission_id)).not.toContain(sa);

		const ra = receiver.for(sa)[0];
		const rb = receiver.for(sb)[0];
		expect(ra.url).toBe('/hook-a');
		expect(ra.headers['x-tenant-secret']).toBe('secret-a');
		expect(ra.json.tenant_id).toBe(a.id);
		expect(rb.url).toBe('/hook-b');
		expect(rb.headers['x-tenant-secret']).toBe('secret-b');
		expect(rb.json.tenant_id).toBe(b.id);
	});

	it('idempotency keys are per caller: the same key in two tenants does two things', async () => {
		const key = `iso-${randomBytes(6).toString('hex')}`;
		const body = { name: 'Idem', url: '/idem-iso', locale: 'en' };
		const ra = await a.api.post('/api/page', body, { headers: { 'Idempotency-Key': key } });
		const rb = await b.api.post('/api/page', body, { headers: { 'Idempotency-Key': key } });
		expect(ra.status).toBe(201);
		expect(rb.status).toBe(201);
		expect(
			(await b.api.get('/api/pages', { params: { url: '/idem-iso' } })).data.data,
		).toHaveLength(1);
	});
});
