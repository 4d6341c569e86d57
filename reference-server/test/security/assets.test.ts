/**
 * Hostile asset names are stored safely: file names and `name` parts with `../`, backslashes, NUL
 * bytes, absolute paths and other oddities never become a path on disk. Every upload lands as exactly
 * one file under <data dir>/assets/<tenant>/<random id>, nothing appears anywhere else (inside the data
 * directory or where the name points), and the returned URL serves the same bytes back. Download URLs
 * that try to climb out of the assets directory get 404.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import {
	type Harness,
	type Tenant,
	createTenant,
	expectError,
	listFiles,
	rawRequest,
	useServer,
} from '../helpers';

let h: Harness;
let t: Tenant;
const marker = `evil-${randomBytes(4).toString('hex')}`;

useServer((started) => (h = started));

beforeAll(async () => {
	t = await createTenant(h);
});

afterAll(async () => {
	// Belt and braces: nothing named after the marker may survive anywhere we looked.
	for (const dir of ['/tmp', path.dirname(h.dataDir)]) {
		for (const entry of fs.readdirSync(dir)) expect(entry.includes(marker)).toBe(false);
	}
});

/** A multipart body written byte by byte, so names can carry anything (NUL, quotes, backslashes). */
function multipart(
	fileName: Buffer | string,
	content: Buffer,
	name?: Buffer | string,
): { body: Buffer; contentType: string } {
	const boundary = `----probe${randomBytes(8).toString('hex')}`;
	const parts: Buffer[] = [];
	if (name !== undefined) {
		parts.push(
			Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n`),
			Buffer.from(name),
			Buffer.from('\r\n'),
		);
	}
	parts.push(
		Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="`),
		Buffer.from(fileName),
		Buffer.from(`"\r\nContent-Type: application/octet-stream\r\n\r\n`),
		content,
		Buffer.from(`\r\n--${boundary}--\r\n`),
	);
	return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const HOSTILE_NAMES: Array<[label: string, fileName: string | Buffer, name?: string | Buffer]> = [
	['parent traversal', `../../../${marker}.txt`],
	['deep traversal to /etc', `../../../../../../../../etc/${marker}`],
	['encoded traversal', `..%2F..%2F${marker}`],
	['backslash traversal', `..\\..\\..\\${marker}.ini`],
	['absolute path', `/tmp/${marker}-abs.txt`],
	['windows absolute path', `C:\\Windows\\Temp\\${marker}.dll`],
	[
		'NUL byte in the file name',
		Buffer.concat([Buffer.from(`${marker}.txt`), Buffer.from([0]), Buffer.from('.php')]),
	],
	['only dots', '..'],
	['empty file name', ''],
	['dot file', `.${marker}`],
	['traversal in the name part', 'photo.jpg', `../../${marker}-name`],
	[
		'NUL and absolute path in the name part',
		'photo.jpg',
		Buffer.concat([Buffer.from(`/tmp/${marker}`), Buffer.from([0]), Buffer.from('x')]),
	],
	['control characters and quotes', `a\u0001b\t"c'${marker}\u007f`],
	['very long name', `${'../'.repeat(200)}${'a'.repeat(2000)}`],
];

describe('hostile names', () => {
	const stored: string[] = [];

	const cases = HOSTILE_NAMES.map(([label, fileName, name]) => ({ label, fileName, name }));
	test.each(cases)(
		'$label: stored once inside assets/, served back byte for byte',
		async ({ label: _label, fileName, name }) => {
			const content = Buffer.concat([Buffer.from(`${_label}\n`), randomBytes(512)]);
			const before = new Set(listFiles(h.dataDir));
			const { body, contentType } = multipart(fileName, content, name);
			const res = await rawRequest(`${h.url}/api/asset`, {
				headers: { authorization: `Bearer ${t.token}`, 'content-type': contentType },
				body,
			});

			expect(res.status).toBe(201);
			expect(res.json).toEqual({
				url: expect.any(String),
				name: expect.any(String),
				size: content.length,
				mime_type: 'application/octet-stream',
			});
			// Exactly one new file, and it is the upload, at assets/<tenant pk>/<32 hex>.
			const added = listFiles(h.dataDir).filter(
				(file) => !before.has(file) && !/site\.db(-wal|-shm|-journal)?$/.test(file),
			);
			expect(added).toHaveLength(1);
			const relative = path.relative(path.join(h.dataDir, 'assets'), added[0]);
			expect(relative).toMatch(/^\d+[/\\][a-f0-9]{32}$/);
			expect(sha(fs.readFileSync(added[0]))).toBe(sha(content));
			stored.push(added[0]);

			// The URL: the server's own /assets/<id>/<safe name>, nothing that climbs or hides a byte.
			const url = new URL(res.json.url);
			expect(url.origin).toBe(h.url);
			const [, prefix, id, safeName, ...rest] = url.pathname.split('/');
			expect([prefix, rest]).toEqual(['assets', []]);
			expect(id).toMatch(/^[a-f0-9]{32}$/);
			expect(safeName).toMatch(/^[A-Za-z0-9._-]{1,120}$/);
			expect(safeName.startsWith('.')).toBe(false);

			const download = await fetch(res.json.url);
			expect(download.status).toBe(200);
			expect(sha(Buffer.from(await download.arrayBuffer()))).toBe(sha(content));
			expect(download.headers.get('x-content-type-options')).toBe('nosniff');
		},
	);

	test('nothing was written where the names pointed', () => {
		expect(fs.existsSync(`/tmp/${marker}-abs.txt`)).toBe(false);
		expect(fs.existsSync(`/etc/${marker}`)).toBe(false);
		const outsideAssets = listFiles(h.dataDir).filter(
			(file) =>
				!file.startsWith(path.join(h.dataDir, 'assets') + path.sep) &&
				!/site\.db(-wal|-shm|-journal)?$/.test(file),
		);
		expect(outsideAssets).toEqual([]);
		for (let dir = h.dataDir, i = 0; i < 3; dir = path.dirname(dir), i++) {
			expect(fs.readdirSync(dir).filter((entry) => entry.includes(marker))).toEqual([]);
		}
		expect(listFiles(path.join(h.dataDir, 'assets'))).toHaveLength(HOSTILE_NAMES.length);
		console.log(
			`[reliability] security: asset names: hostile_names=${HOSTILE_NAMES.length} files_stored=${stored.length} files_outside_assets=0`,
		);
	});
});

describe('download URLs that try to leave the assets directory', () => {
	test.each([
		'/assets/../site.db',
		'/assets/..%2Fsite.db/x',
		'/assets/..%2F..%2Fsite.db/site.db',
		'/assets/%2e%2e/site.db',
		'/assets/1/..%2F..%2Fsite.db',
		`/assets/${'0'.repeat(32)}/..%2F..%2F..%2Fsite.db`,
		'/assets/%00/x',
		`/assets/${'a'.repeat(31)}%00/x`,
	])('GET %s answers 404 with the error body', async (urlPath) => {
		const res = await rawRequest(`${h.url}${urlPath}`, { method: 'GET' });
		expectError(res, 404, 'not_found');
	});
});
