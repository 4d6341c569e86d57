/**
 * Asset upload (multipart) and token-free download; files on disk under server-made names.
 */
import FormData from 'form-data';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
	type Harness,
	type Tenant,
	absolute,
	client,
	createTenant,
	detailFields,
	expectError,
	filesWithContent,
	listFiles,
	start,
	uniqueId,
	useServer,
} from '../helpers';

let h: Harness;
useServer((started) => (h = started));

function form(bytes: Buffer, filename: string, contentType: string, name?: string): FormData {
	const f = new FormData();
	if (name !== undefined) f.append('name', name);
	f.append('file', bytes, { filename, contentType });
	return f;
}

async function upload(t: Tenant, f: FormData) {
	return t.api.post('/api/asset', f, { headers: f.getHeaders() });
}

async function download(h: Harness, url: string) {
	return client(h.url).get(absolute(h, url), { responseType: 'arraybuffer' });
}

describe('POST /api/asset', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
	});

	it('stores a 300 KB random file and serves it back byte for byte without a token', async () => {
		const bytes = randomBytes(300 * 1024);
		const res = await upload(
			t,
			form(bytes, 'photo.bin', 'application/octet-stream', 'Holiday photo'),
		);
		expect(res.status).toBe(201);
		expect(res.data).toEqual(
			expect.objectContaining({
				url: expect.any(String),
				name: 'Holiday photo',
				size: bytes.length,
				mime_type: 'application/octet-stream',
			}),
		);
		expect(absolute(h, res.data.url).startsWith(h.url + '/')).toBe(true);

		const got = await download(h, res.data.url);
		expect(got.status).toBe(200);
		const body = Buffer.from(got.data);
		expect(body.length).toBe(bytes.length);
		expect(body.equals(bytes)).toBe(true);
		expect(String(got.headers['content-type'])).toContain('application/octet-stream');

		// stored once under the data directory
		expect(filesWithContent(h.dataDir, bytes)).toHaveLength(1);
	});

	it('keeps the mime type and defaults the name to the file name', async () => {
		const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(64)]);
		const res = await upload(t, form(png, 'logo.png', 'image/png'));
		expect(res.status).toBe(201);
		expect(res.data).toEqual(
			expect.objectContaining({ name: 'logo.png', size: png.length, mime_type: 'image/png' }),
		);
		const got = await download(h, res.data.url);
		expect(got.status).toBe(200);
		expect(String(got.headers['content-type'])).toContain('image/png');
		expect(Buffer.from(got.data).equals(png)).toBe(true);
	});

	it('gives each upload its own url, even with the same file name', async () => {
		const a = randomBytes(100);
		const b = randomBytes(100);
		const ra = await upload(t, form(a, 'same.bin', 'application/octet-stream'));
		const rb = await upload(t, form(b, 'same.bin', 'application/octet-stream'));
		expect(ra.status).toBe(201);
		expect(rb.status).toBe(201);
		expect(ra.data.url).not.toBe(rb.data.url);
		expect(Buffer.from((await download(h, ra.data.url)).data).equals(a)).toBe(true);
		expect(Buffer.from((await download(h, rb.data.url)).data).equals(b)).toBe(true);
	});

	it('never uses the client file name as a path', async () => {
		const marker = `evil-${randomBytes(4).toString('hex')}`;
		const bytes = randomBytes(256);
		const res = await upload(t, form(bytes, `../../../${marker}.txt`, 'text/plain'));
		expect(res.status).toBe(201);
		const stored = filesWithContent(h.dataDir, bytes);
		expect(stored).toHaveLength(1);
		expect(path.basename(stored[0])).not.toContain(marker);
		expect(stored[0].startsWith(h.dataDir + path.sep)).toBe(true);
		expect(listFiles(h.dataDir).some((f) => path.basename(f).includes(marker))).toBe(false);
		for (const up of ['..', '../..', '../../..']) {
			expect(fs.existsSync(path.join(h.dataDir, up, `${marker}.txt`))).toBe(false);
		}
		expect(Buffer.from((await download(h, res.data.url)).data).equals(bytes)).toBe(true);
	});

	it('answers 400 validation_failed naming file when the file part is missing', async () => {
		const f = new FormData();
		f.append('name', 'no file here');
		const res = await upload(t, f);
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('file');
	});

	it('answers 415 for an upload sent as JSON', async () => {
		const res = await t.api.post('/api/asset', { file: 'aGVsbG8=', name: 'x' });
		expectError(res, 415, 'unsupported_media_type');
	});

	it('needs a tenant token: 401 without, 403 with the admin token', async () => {
		expectError(
			await h.anon.post('/api/asset', form(randomBytes(10), 'a.bin', 'application/octet-stream')),
			401,
			'unauthorized',
		);
		const f = form(randomBytes(10), 'a.bin', 'application/octet-stream');
		expectError(await h.admin.post('/api/asset', f, { headers: f.getHeaders() }), 403, 'forbidden');
	});

	it('answers 404 for an asset url that does not exist', async () => {
		const res = await upload(t, form(randomBytes(10), 'x.bin', 'application/octet-stream'));
		expect(res.status).toBe(201);
		const u = new URL(absolute(h, res.data.url));
		// same shape, unknown id: replace every hex/uuid-like segment
		const bogus = u.pathname.replace(
			/[0-9a-f]{8}-[0-9a-f-]{27}|[0-9a-f]{16,}|[A-Za-z0-9_-]{20,}/gi,
			'doesnotexist00000000',
		);
		expect(bogus).not.toBe(u.pathname);
		const got = await client(h.url).get(bogus);
		expect(got.status).toBe(404);
	});
});

describe('tenant deletion removes asset files', () => {
	it('removes the files of the deleted tenant only; its urls answer 404', async () => {
		const a = await createTenant(h);
		const b = await createTenant(h);
		const aBytes = randomBytes(2048);
		const bBytes = randomBytes(2048);
		const ra = await upload(a, form(aBytes, 'a.bin', 'application/octet-stream'));
		const rb = await upload(b, form(bBytes, 'b.bin', 'application/octet-stream'));
		expect(ra.status).toBe(201);
		expect(rb.status).toBe(201);
		expect(filesWithContent(h.dataDir, aBytes)).toHaveLength(1);
		expect(filesWithContent(h.dataDir, bBytes)).toHaveLength(1);

		const del = await h.admin.delete('/api/tenant', { data: { id: a.id } });
		expect(del.status).toBe(200);

		expect(filesWithContent(h.dataDir, aBytes)).toHaveLength(0);
		expect((await download(h, ra.data.url)).status).toBe(404);
		// the other tenant's file stays
		expect(filesWithContent(h.dataDir, bBytes)).toHaveLength(1);
		const got = await download(h, rb.data.url);
		expect(got.status).toBe(200);
		expect(Buffer.from(got.data).equals(bBytes)).toBe(true);
	});

	it('a rename keeps the assets downloadable', async () => {
		const t = await createTenant(h);
		const bytes = randomBytes(512);
		const res = await upload(t, form(bytes, 'keep.bin', 'application/octet-stream'));
		expect(res.status).toBe(201);
		const newId = uniqueId('renamed');
		expect((await h.admin.put('/api/tenant', { old_id: t.id, id: newId })).status).toBe(200);
		const got = await download(h, res.data.url);
		expect(got.status).toBe(200);
		expect(Buffer.from(got.data).equals(bytes)).toBe(true);
	});
});

describe('publicUrl', () => {
	it('builds asset urls on the configured public base', async () => {
		const pub = await start({ publicUrl: 'https://cdn.example.test/site/' });
		const t = await createTenant(pub);
		const bytes = randomBytes(64);
		const res = await upload(t, form(bytes, 'p.bin', 'application/octet-stream'));
		expect(res.status).toBe(201);
		expect(res.data.url.startsWith('https://cdn.example.test/site/')).toBe(true);
		// the same path below the real listening url serves the file
		const rest = res.data.url.slice('https://cdn.example.test/site'.length);
		const got = await client(pub.url).get(rest, { responseType: 'arraybuffer' });
		expect(got.status).toBe(200);
		expect(Buffer.from(got.data).equals(bytes)).toBe(true);
	});
});

describe('memory mode', () => {
	it('keeps nothing under the data directory', async () => {
		const dir = path.join(h.dataDir, `never-created-${randomBytes(3).toString('hex')}`);
		const mem = await start({ memory: true, dataDir: dir });
		const t = await createTenant(mem);
		const bytes = randomBytes(1000);
		const res = await upload(t, form(bytes, 'm.bin', 'application/octet-stream'));
		expect(res.status).toBe(201);
		const got = await download(mem, res.data.url);
		expect(Buffer.from(got.data).equals(bytes)).toBe(true);
		expect(listFiles(dir)).toEqual([]);
	});
});
