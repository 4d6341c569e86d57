/**
 * An upload's file name is cut and cleaned as the `name` part is; a tenant deleted
 * while its upload streams gets a 404, not a 500; the form's per-address rate limit groups IPv6 by
 * /64 and believes X-Forwarded-For only from proxies named by --trust-proxy (off by default).
 */
import FormData from 'form-data';
import * as http from 'node:http';

import {
	type Harness,
	createTenant,
	expectError,
	listFiles,
	removeDataDirs,
	start,
	stopAll,
} from '../helpers';

afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

const BIDI_AND_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('upload names', () => {
	let h: Harness;
	beforeAll(async () => {
		h = await start();
	});

	it.each([
		[
			'the file name',
			(f: FormData, name: string) =>
				f.append('file', Buffer.from('x'), { filename: name, contentType: 'text/plain' }),
		],
		[
			'the name part',
			(f: FormData, name: string) => {
				f.append('name', name);
				f.append('file', Buffer.from('x'), { filename: 'plain.txt', contentType: 'text/plain' });
			},
		],
	])(
		'%s of 60,000 characters with bidi overrides is stored cut to 255 and cleaned',
		async (_label, build) => {
			const t = await createTenant(h);
			const name = `invoice\u202Efdp.exe\u2066${'€'.repeat(60_000)}`;
			const f = new FormData();
			build(f, name);
			const res = await t.api.post('/api/asset', f, { headers: f.getHeaders() });
			expect(res.status).toBe(201);
			expect([...res.data.name].length).toBeLessThanOrEqual(255);
			expect(res.data.name).not.toMatch(BIDI_AND_CONTROL);
			expect(res.data.name.startsWith('invoice fdp.exe')).toBe(true);
			expect(res.data.url.length).toBeLessThan(400);
		},
	);
});

describe('a tenant deleted while its upload streams', () => {
	it('answers 404 (not a 500) and keeps nothing of the upload', async () => {
		const h = await start();
		const t = await createTenant(h);
		const boundary = 'edge-boundary';
		const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
		const tail = `\r\n--${boundary}--\r\n`;
		const chunk = Buffer.alloc(64 * 1024, 's');
		const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
			const req = http.request(`${h.url}/api/asset`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${t.token}`,
					'content-type': `multipart/form-data; boundary=${boundary}`,
				},
			});
			req.on('response', (res) => {
				let text = '';
				res.on('data', (c) => (text += c));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
			});
			req.on('error', reject);
			req.write(head);
			req.write(chunk);
			// Half the file is on disk; the admin deletes the tenant; then the rest arrives.
			setTimeout(async () => {
				const deleted = await h.admin.delete('/api/tenant', { data: { id: t.id } });
				expect(deleted.status).toBe(200);
				req.write(chunk);
				req.end(tail);
			}, 200);
		});
		const res = await answer;
		expect(res.status).toBe(404);
		expect(res.body.error).toBe('not_found');
		expect(listFiles(h.dataDir).filter((file) => file.includes('/assets/'))).toEqual([]);
	});
});

describe('the form rate limit per client address', () => {
	const submitAs = (h: Harness, tenantId: string, forwardedFor?: string) =>
		h.anon.post(
			`/forms/${tenantId}/contact`,
			{ m: 1 },
			{ headers: forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {} },
		);

	it('behind a trusted proxy, IPv6 clients in one /64 share a budget; another /64 has its own', async () => {
		const h = await start({ formRatePerAddress: 2, trustProxy: 'loopback' });
		const t = await createTenant(h);
		const statuses = [];
		for (const address of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'])
			statuses.push((await submitAs(h, t.id, address)).status);
		expect(statuses).toEqual([202, 202, 429]);
		expect((await submitAs(h, t.id, '2001:db8:1:3::1')).status).toBe(202);
		// IPv4 clients count one by one.
		expect((await submitAs(h, t.id, '198.51.100.7')).status).toBe(202);
		expect((await submitAs(h, t.id, '198.51.100.8')).status).toBe(202);
	});

	it('by default X-Forwarded-For is not believed: the peer address counts', async () => {
		const h = await start({ formRatePerAddress: 2 });
		const t = await createTenant(h);
		const statuses = [];
		for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
			statuses.push((await submitAs(h, t.id, address)).status);
		expect(statuses).toEqual([202, 202, 429]);
		expectError(await submitAs(h, t.id), 429, 'rate_limited');
	});
});
