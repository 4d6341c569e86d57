/**
 * Tenant node, Asset > Upload: a binary property of the input item goes up as multipart (built by
 * the node, streamed from n8n's binary data store on disk) and comes back as a public URL.
 */
import axios from 'axios';
import { createHash, randomBytes } from 'crypto';
import type { IncomingMessage, ServerResponse } from 'http';
import type { Readable } from 'stream';

import { startTestSite } from '../../../harness/reference-server';
import { startMintCapture } from '../../../harness/mint-capture';
import { useNodeTestContext, type TenantContext } from '../../../harness/nodes';

const ctx = useNodeTestContext({ maxUploadMb: 100 });

let tenant: TenantContext;
beforeAll(async () => {
	tenant = await ctx.tenant('assets');
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Downloads a URL without any token and hashes it as it streams in. */
async function download(url: string) {
	const response = await axios.get<Readable>(url, {
		responseType: 'stream',
		validateStatus: () => true,
	});
	const hash = createHash('sha256');
	let size = 0;
	for await (const chunk of response.data) {
		hash.update(chunk as Buffer);
		size += (chunk as Buffer).length;
	}
	return {
		status: response.status,
		contentType: String(response.headers['content-type']),
		size,
		sha256: hash.digest('hex'),
	};
}

const upload = (
	binary: { data: Buffer; fileName?: string; mimeType?: string },
	parameters: Record<string, unknown> = {},
	extra = {},
) =>
	tenant.run(
		{ resource: 'asset', operation: 'upload', binaryPropertyName: 'data', ...parameters },
		{ input: [{ json: {}, binary: { data: binary } }], ...extra },
	);

test('a 50 MB file goes up whole and reads back byte for byte from the returned URL', async () => {
	const data = randomBytes(50 * 1024 * 1024);
	const result = await upload({ data, fileName: 'big-video.mp4', mimeType: 'video/mp4' });
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(1);
	const asset = result.items[0].json as {
		url: string;
		name: string;
		size: number;
		mime_type: string;
	};
	expect(asset).toEqual({
		url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/assets\//),
		name: 'big-video.mp4',
		size: data.length,
		mime_type: 'video/mp4',
	});
	expect(result.items[0].pairedItem).toEqual({ item: 0 });
	// The output carries the record, not a copy of the file.
	expect(result.items[0].binary).toBeUndefined();

	const downloaded = await download(asset.url);
	expect(downloaded).toEqual({
		status: 200,
		contentType: 'video/mp4',
		size: data.length,
		sha256: sha256(data),
	});
	// 50 MB through multipart, the server and back: a deadline far above an idle machine's few seconds,
	// for one running beside the other suites.
}, 300_000);

test('file name and MIME type come from the binary data', async () => {
	const data = Buffer.from('\x89PNG\r\n\x1a\n fake png bytes');
	const result = await upload({ data, fileName: 'logo.png', mimeType: 'image/png' });
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({
		name: 'logo.png',
		mime_type: 'image/png',
		size: data.length,
	});
	expect(String(result.items[0].json.url)).toMatch(/\/logo\.png$/);
	const downloaded = await download(String(result.items[0].json.url));
	expect(downloaded).toMatchObject({ contentType: 'image/png', sha256: sha256(data) });
});

test('file name, MIME type and display name can be overridden', async () => {
	const data = Buffer.from('plain bytes');
	const result = await upload(
		{ data, fileName: 'upload.bin', mimeType: 'application/octet-stream' },
		{ additionalFields: { fileName: 'team.jpg', mimeType: 'image/jpeg' } },
	);
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({ name: 'team.jpg', mime_type: 'image/jpeg' });
	expect((await download(String(result.items[0].json.url))).contentType).toBe('image/jpeg');

	const named = await upload(
		{ data, fileName: 'upload.bin', mimeType: 'text/plain' },
		{ additionalFields: { name: 'Team photo 2024' } },
	);
	expect(named.error).toBeUndefined();
	expect(named.items[0].json).toMatchObject({ name: 'Team photo 2024', mime_type: 'text/plain' });
});

test('a non-ASCII file name arrives as it was', async () => {
	const result = await upload({
		data: Buffer.from('x'),
		fileName: 'Übersicht ß.pdf',
		mimeType: 'application/pdf',
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({
		name: 'Übersicht ß.pdf',
		mime_type: 'application/pdf',
	});
});

test('several items upload in order, each paired with its input', async () => {
	const files = [0, 1, 2, 3, 4].map((i) => ({
		data: randomBytes(10_000 + i),
		fileName: `file-${i}.bin`,
		mimeType: 'application/octet-stream',
	}));
	const result = await tenant.run(
		{
			resource: 'asset',
			operation: 'upload',
			binaryPropertyName: 'data',
			options: { batching: { batch: { batchSize: 3 } } },
		},
		{ input: files.map((file) => ({ json: {}, binary: { data: file } })) },
	);
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => [item.json.name, item.json.size, item.pairedItem])).toEqual(
		files.map((file, i) => [file.fileName, file.data.length, { item: i }]),
	);
	for (const [i, item] of result.items.entries()) {
		expect((await download(String(item.json.url))).sha256).toBe(sha256(files[i].data));
	}
});

test('a bad MIME type override or a missing binary property fails before anything is sent', async () => {
	const before = ctx.site.server.app.site.store.db
		.prepare('SELECT COUNT(*) AS n FROM assets')
		.get() as { n: number };

	const badMime = await upload(
		{ data: Buffer.from('x'), fileName: 'a.txt', mimeType: 'text/plain' },
		{ additionalFields: { mimeType: 'not a mime type' } },
	);
	expect(badMime.error?.message).toMatch(/MIME Type.*must be a MIME type/);

	const missing = await upload(
		{ data: Buffer.from('x'), fileName: 'a.txt' },
		{ binaryPropertyName: 'attachment' },
	);
	expect(missing.items).toHaveLength(0);
	expect(missing.error?.message).toMatch(/attachment/);

	const after = ctx.site.server.app.site.store.db
		.prepare('SELECT COUNT(*) AS n FROM assets')
		.get() as { n: number };
	expect(after.n).toBe(before.n);
});

test('with the managed credential, an upload whose token was revoked mints again and sends the file once', async () => {
	await ctx.site.createTenant('assets-managed');
	// The mint goes through a loopback forwarder that can revoke a token the moment it is issued.
	const capture = await startMintCapture(() => ctx.site.url);
	try {
		const credentials = ctx.managedCredential('assets-managed', { adminBaseUrl: capture.url });
		const run = (data: Buffer) =>
			ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				parameters: {
					authentication: 'managedTenant',
					resource: 'asset',
					operation: 'upload',
					binaryPropertyName: 'data',
				},
				input: [
					{
						json: {},
						binary: { data: { data, fileName: 'm.bin', mimeType: 'application/octet-stream' } },
					},
				],
			});
		const issued = ctx.site.tokensIssued('assets-managed');
		expect((await run(Buffer.from('first'))).error).toBeUndefined();
		// One run, one mint.
		expect(ctx.site.tokensIssued('assets-managed') - issued).toBe(1);
		expect(capture.minted).toHaveLength(1);

		// The next run's token is revoked (a rotation on the admin surface) as soon as it is minted:
		// the upload, a streamed 2 MB body, is refused with 401, and the run mints once more.
		let rotations = 0;
		capture.afterMint = async () => {
			capture.afterMint = undefined;
			const rotation = await ctx.site.admin.post('/api/tenant/token', {
				id: 'assets-managed',
				revoke_previous: true,
			});
			expect(rotation.status).toBe(200);
			rotations++;
		};
		// What the server answered to the uploads of this run.
		const answers: number[] = [];
		const onRequest = (request: IncomingMessage, response: ServerResponse) => {
			if (request.method === 'POST' && request.url === '/api/asset')
				response.on('finish', () => answers.push(response.statusCode));
		};
		ctx.site.server.app.server.on('request', onRequest);
		const data = randomBytes(2 * 1024 * 1024);
		let result;
		try {
			result = await run(data);
		} finally {
			ctx.site.server.app.server.off('request', onRequest);
		}
		expect(result.error).toBeUndefined();
		expect(rotations).toBe(1);
		// Refused once with the revoked token, then stored once with the replacement.
		expect(answers).toEqual([401, 201]);
		// This run minted twice (the revoked token, then its one replacement): three mints through the
		// forwarder in all; on the server, with the rotation's token, four since the first run began.
		expect(capture.minted).toHaveLength(3);
		expect(ctx.site.tokensIssued('assets-managed') - issued).toBe(4);
		expect((await download(String(result.items[0].json.url))).sha256).toBe(sha256(data));

		const stored = ctx.site.server.app.site.store.db
			.prepare(
				'SELECT a.size FROM assets a JOIN tenants t ON t.pk = a.tenant_pk WHERE t.id = ? ORDER BY a.rowid',
			)
			.all('assets-managed') as Array<{ size: number }>;
		expect(stored.map((row) => row.size)).toEqual([5, data.length]);
	} finally {
		await capture.close();
	}
});

test('a file over the server limit fails with 413 and the server message', async () => {
	const site = await startTestSite({ maxUploadMb: 0.05 });
	try {
		const small = await site.createTenant('limited');
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: site.url,
			token: small.token,
		});
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: { resource: 'asset', operation: 'upload', binaryPropertyName: 'data' },
			input: [
				{
					json: {},
					binary: {
						data: {
							data: randomBytes(200 * 1024),
							fileName: 'big.bin',
							mimeType: 'application/octet-stream',
						},
					},
				},
			],
			continueOnFail: true,
		});
		expect(result.items).toEqual([
			{
				json: { error: 'The upload is larger than the limit of 0.05 MB.', httpCode: '413' },
				pairedItem: { item: 0 },
			},
		]);
	} finally {
		await site.close();
	}
});
