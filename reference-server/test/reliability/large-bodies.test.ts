/**
 * Large bodies (megabytes of templates): a content update answers with the templates it stored
 * without reading them back, and the answers are the same as for a small body.
 */
import { randomUUID } from 'node:crypto';
import {
	type Harness,
	type RawResponse,
	type Tenant,
	createPage,
	createTenant,
	expectError,
	expectOk,
	rawRequest,
	useServer,
} from '../helpers';

/** What counts as large here: a body of megabytes is parsed and stored in one go. */
const LARGE_BYTES = 256 * 1024;

let h: Harness;
useServer((started) => (h = started));

describe('a large content update', () => {
	it('answers the page with exactly the templates stored; four at once all land', async () => {
		const t = await createTenant(h);
		const block = (i: number) => ({
			type: 'text',
			n: i,
			body: 'Lorem ipsum dolor sit amet. '.repeat(20),
			nested: { list: [1, 'two', null, true], banner: null },
		});
		const templates = Array.from({ length: 1500 }, (_, i) => block(i));
		expect(JSON.stringify(templates).length).toBeGreaterThan(256 * 1024);
		await Promise.all(['/a', '/b', '/c', '/d'].map((url) => createPage(t, url)));
		const answers = await Promise.all(
			['/a', '/b', '/c', '/d'].map((url, i) =>
				t.api.put('/api/content', {
					url,
					templates: [...templates, { page: i }],
					banner: { title: url },
				}),
			),
		);
		for (const [i, res] of answers.entries()) {
			const body = expectOk(res);
			expect(body.message).toBe('Content updated successfully.');
			expect(body.page).toEqual(
				expect.objectContaining({
					url: ['/a', '/b', '/c', '/d'][i],
					draft: false,
					banner: { title: ['/a', '/b', '/c', '/d'][i] },
					templates: [...templates, { page: i }],
				}),
			);
			expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
		}
		const stored = expectOk(await t.api.get('/api/pages', { params: { url: '/c' } })).data[0];
		expect(stored.templates).toEqual([...templates, { page: 2 }]);
		expect(stored.updated_at).toBe(answers[2].data.page.updated_at);
		// banner absent keeps the stored one.
		const kept = expectOk(await t.api.put('/api/content', { url: '/a', templates }));
		expect(kept.page.banner).toEqual({ title: '/a' });
	});
});

/** The same JSON text with whitespace after it: the same value, sent as a large body. */
const padded = (text: string | Buffer) =>
	Buffer.concat([Buffer.from(text), Buffer.from(' '.repeat(LARGE_BYTES))]);

function putContent(
	t: Tenant,
	body: string | Buffer,
	headers: Record<string, string> = {},
): Promise<RawResponse> {
	return rawRequest(`${h.url}/api/content`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}`, ...headers },
		body,
	});
}

const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('a large body is refused exactly as a small one', () => {
	let t: Tenant;
	beforeAll(async () => {
		t = await createTenant(h);
		await createPage(t, '/home');
	});

	it.each([
		[
			'invalid UTF-8',
			Buffer.concat([
				Buffer.from('{"url":"/home","templates":[{"s":"x'),
				Buffer.from([0xed, 0xa0, 0x80]),
				Buffer.from('"}]}'),
			]),
			400,
			'invalid_json',
			/UTF-8/,
		],
		[
			'nesting past 1,000 levels',
			`{"url":"/home","templates":[{"a":${deep(1001)}}]}`,
			400,
			'invalid_json',
			/deeper than 1000 levels/,
		],
		[
			'invalid JSON',
			'{"url":"/home","templates":[{"a":1,}]}',
			400,
			'invalid_json',
			/not valid JSON/,
		],
		[
			'a __proto__ key',
			'{"url":"/home","templates":[{"__proto__":{"admin":true}}]}',
			400,
			'invalid_json',
			/"__proto__" key, which is not accepted/,
		],
		[
			'templates not an array',
			'{"url":"/home","templates":{"a":1}}',
			400,
			'validation_failed',
			/templates/,
		],
		[
			'a template that is not an object',
			'{"url":"/home","templates":[{"a":1},2,null]}',
			400,
			'validation_failed',
			/templates/,
		],
		[
			'a bad url beside good templates',
			'{"url":"//evil.example","templates":[{"a":1}]}',
			400,
			'validation_failed',
			/url/,
		],
		[
			'an unknown field',
			'{"url":"/home","templates":[{"a":1}],"extra":true}',
			400,
			'validation_failed',
			/extra/,
		],
		['an unknown page', '{"url":"/nowhere","templates":[{"a":1}]}', 404, 'not_found', /nowhere/],
	])('%s', async (_name, body, status, code, message) => {
		const small = await putContent(t, body);
		expect(expectError(small, status, code).message).toMatch(message);
		const large = await putContent(t, padded(body));
		expect(padded(body).length).toBeGreaterThanOrEqual(LARGE_BYTES);
		expect({ status: large.status, body: large.json }).toEqual({
			status: small.status,
			body: small.json,
		});
		expect(
			expectOk(await t.api.get('/api/pages', { params: { url: '/home' } })).data[0].templates,
		).toEqual([]);
	});
});

describe('a large content update stores what was sent', () => {
	it('text with escapes, non-ASCII characters and a "constructor" key, sent in any key order', async () => {
		const t = await createTenant(h);
		await createPage(t, '/text');
		const templates = Array.from({ length: 2000 }, (_, i) => ({
			type: 'text',
			body: `Zeile ${i}: \u00e9\u65e5\ud83d\ude00 "quoted" \\ back\nslash \u2028 \u0000 </script>`,
			constructor: { prototype: { i } },
			list: [i, -0.5, 1e21, true, null, { deeper: [[[]]] }],
		}));
		const text = JSON.stringify({ templates, url: '/text', banner: null });
		expect(text.length).toBeGreaterThan(LARGE_BYTES);
		const res = await putContent(t, text);
		expect(res.status).toBe(200);
		expect(res.json.page.templates).toEqual(templates);
		expect(res.json.page.banner).toBeNull();
		// The answer carries the stored text as is: the same bytes as serialising what was sent.
		expect(res.text).toContain(`"templates":${JSON.stringify(templates)}`);
		const stored = expectOk(await t.api.get('/api/pages', { params: { url: '/text' } })).data[0];
		expect(stored.templates).toEqual(templates);
	});

	it('eight updates of one page at once: each answered with its own templates, the page ends with the last one written', async () => {
		const t = await createTenant(h);
		await createPage(t, '/shared');
		const version = (v: number) =>
			Array.from({ length: 700 }, (_, i) => ({ v, i, text: 'x'.repeat(400) }));
		// Large and small updates mixed: both paths write the same page.
		const sends = Array.from({ length: 8 }, (_, v) =>
			v % 4 === 3 ? [{ v, small: true }] : version(v),
		);
		expect(JSON.stringify(version(0)).length).toBeGreaterThan(LARGE_BYTES);
		const answers = await Promise.all(
			sends.map((templates) => putContent(t, JSON.stringify({ url: '/shared', templates }))),
		);
		answers.forEach((res, v) => {
			expect(res.status).toBe(200);
			expect(res.json.page.templates).toEqual(sends[v]);
		});
		const last = answers.reduce((a, b) =>
			b.json.page.updated_at >= a.json.page.updated_at ? b : a,
		);
		const stored = expectOk(await t.api.get('/api/pages', { params: { url: '/shared' } })).data[0];
		expect(stored.templates).toEqual(last.json.page.templates);
		expect(stored.updated_at).toBe(last.json.page.updated_at);
	});
});

describe('Idempotency-Key with a large body', () => {
	let t: Tenant;
	const templates = Array.from({ length: 1500 }, (_, i) => ({ i, text: 'y'.repeat(200) }));
	beforeAll(async () => {
		t = await createTenant(h);
		await createPage(t, '/idem');
	});

	it('a repeat is replayed, whatever its key order and whitespace; the key with other templates is a 422', async () => {
		const key = randomUUID();
		const first = await putContent(t, JSON.stringify({ url: '/idem', templates }), {
			'idempotency-key': key,
		});
		expect(first.status).toBe(200);
		const repeat = await putContent(t, padded(JSON.stringify({ templates, url: '/idem' })), {
			'idempotency-key': key,
		});
		expect(repeat.status).toBe(200);
		expect(repeat.headers['idempotent-replayed']).toBe('true');
		expect(repeat.text).toBe(first.text);
		const other = await putContent(
			t,
			JSON.stringify({ url: '/idem', templates: [...templates, { i: -1 }] }),
			{ 'idempotency-key': key },
		);
		expectError(other, 422, 'idempotency_key_reused');
	});

	it('concurrent repeats of one large body: one update, the others replay it or wait their turn', async () => {
		const key = randomUUID();
		const body = JSON.stringify({ url: '/idem', templates: [...templates, { concurrent: true }] });
		const answers = await Promise.all(
			Array.from({ length: 4 }, () => putContent(t, body, { 'idempotency-key': key })),
		);
		const done = answers.filter((res) => res.status === 200);
		expect(done.length).toBeGreaterThanOrEqual(1);
		for (const res of done)
			expect(res.json.page.templates).toEqual([...templates, { concurrent: true }]);
		expect(done.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
		for (const res of answers.filter((r) => r.status !== 200)) expectError(res, 409, 'conflict');
	});
});
