/**
 * Size limits: an oversized JSON body and an oversized upload answer 413 payload_too_large, and a
 * rejected upload leaves no file behind.
 */
import FormData from 'form-data';
import { randomBytes } from 'node:crypto';

import {
	type Harness,
	type Tenant,
	absolute,
	client,
	createTenant,
	expectError,
	filesWithContent,
	largeNonDbFiles,
	rawRequest,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
let t: Tenant;

const MAX_BODY_MB = 0.05; // 50 KB
const MAX_UPLOAD_MB = 0.5; // 512 KB

useServer((started) => (h = started), { maxBodyMb: MAX_BODY_MB, maxUploadMb: MAX_UPLOAD_MB });

beforeAll(async () => {
	t = await createTenant(h);
});

function uploadForm(bytes: Buffer): FormData {
	const f = new FormData();
	f.append('file', bytes, { filename: 'big.bin', contentType: 'application/octet-stream' });
	return f;
}

describe('JSON body limit', () => {
	it('answers 413 payload_too_large for a JSON body over max-body-mb, and stores nothing', async () => {
		const templates = [{ text: 'x'.repeat(100 * 1024) }];
		const created = await t.api.post('/api/page', { name: 'Big', url: '/big', locale: 'en' });
		expect(created.status).toBe(201);
		const res = await t.api.put('/api/content', { url: '/big', templates });
		expectError(res, 413, 'payload_too_large');
		const page = await t.api.get('/api/pages', { params: { url: '/big' } });
		expect(page.data.data[0].templates).toEqual([]);
	});

	it('applies to the central surface and the contact form too', async () => {
		const big = 'y'.repeat(80 * 1024);
		expectError(
			await h.admin.post('/api/tenant', { id: 'big-tenant', fqdn: big }),
			413,
			'payload_too_large',
		);
		expectError(
			await h.anon.post(`/forms/${t.id}/contact`, { message: big }),
			413,
			'payload_too_large',
		);
	});

	it('answers 413 to a raw oversized request with Content-Length', async () => {
		const body = JSON.stringify({ google_code: 'z'.repeat(60 * 1024) });
		const res = await rawRequest(`${h.url}/api/settings`, {
			method: 'POST',
			headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
			body,
		});
		expectError(res, 413, 'payload_too_large');
	});

	it('accepts a body just under the limit', async () => {
		const res = await t.api.post('/api/settings', { google_code: 'g'.repeat(40 * 1024) });
		expect(res.status).toBe(200);
	});
});

describe('upload limit', () => {
	it('accepts a 300 KB upload (the JSON limit does not apply to uploads)', async () => {
		const bytes = randomBytes(300 * 1024);
		const f = uploadForm(bytes);
		const res = await t.api.post('/api/asset', f, { headers: f.getHeaders() });
		expect(res.status).toBe(201);
		expect(res.data.size).toBe(bytes.length);
		const got = await client(h.url).get(absolute(h, res.data.url), { responseType: 'arraybuffer' });
		expect(Buffer.from(got.data).equals(bytes)).toBe(true);
	});

	it('answers 413 payload_too_large for a 1 MB upload and leaves no file in the data dir', async () => {
		const before = new Set(largeNonDbFiles(h.dataDir, 1));
		const bytes = randomBytes(1024 * 1024);
		const f = uploadForm(bytes);
		const res = await t.api.post('/api/asset', f, {
			headers: f.getHeaders(),
			maxBodyLength: Infinity,
			maxContentLength: Infinity,
		});
		expectError(res, 413, 'payload_too_large');
		// the partial file is removed (allow the server a moment to unlink after answering)
		await waitFor(
			() => largeNonDbFiles(h.dataDir, 1).filter((f) => !before.has(f)).length === 0,
			3000,
			'no new asset file',
		);
		expect(filesWithContent(h.dataDir, bytes)).toHaveLength(0);
	});

	it('answers 413 for an upload just over the limit, and the server keeps working', async () => {
		const bytes = randomBytes(Math.ceil(MAX_UPLOAD_MB * 1024 * 1024) + 1);
		const f = uploadForm(bytes);
		const res = await t.api.post('/api/asset', f, {
			headers: f.getHeaders(),
			maxBodyLength: Infinity,
		});
		expectError(res, 413, 'payload_too_large');
		expect(filesWithContent(h.dataDir, bytes)).toHaveLength(0);
		const ok = uploadForm(randomBytes(1000));
		expect((await t.api.post('/api/asset', ok, { headers: ok.getHeaders() })).status).toBe(201);
	});
});
