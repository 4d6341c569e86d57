/**
 * Input that used to get a 500 or be stored as something else: a page
 * number past any listing, JSON nested thousands of levels deep, page urls that lead off the site or
 * hide characters, and JSON bodies that are not valid UTF-8. Each is a 400 with the error body.
 */
import {
	type Harness,
	type Tenant,
	createPage,
	createTenant,
	detailFields,
	expectError,
	expectOk,
	rawRequest,
	useServer,
} from '../helpers';

let h: Harness;
let t: Tenant;
useServer((started) => (h = started));

beforeAll(async () => {
	t = await createTenant(h);
	await createPage(t, '/home');
});

const deep = (depth: number, open = '[', close = ']') =>
	`${open.repeat(depth)}${close.repeat(depth)}`;

async function sendJson(method: string, path: string, body: string | Buffer): Promise<any> {
	return rawRequest(`${h.url}${path}`, {
		method,
		headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}` },
		body,
	});
}

describe('page numbers', () => {
	it.each(['99999999999999999999', '9007199254740993', '1000000001'])(
		'page=%s: 400 naming page',
		async (page) => {
			for (const path of ['/api/pages', '/api/contact-form/deliveries']) {
				const res = await t.api.get(`${path}?page=${page}`);
				expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(['page']);
			}
		},
	);

	it('the deepest page allowed answers an empty page', async () => {
		const body = expectOk(await t.api.get('/api/pages?page=1000000000&per_page=100'));
		expect(body.data).toEqual([]);
		expect(body.meta.page).toBe(1_000_000_000);
	});
});

describe('deeply nested JSON', () => {
	it.each([1001, 4_500, 100_000])(
		'%i levels in stored content: 400 invalid_json, nothing stored',
		async (depth) => {
			const res = await sendJson(
				'PUT',
				'/api/content',
				`{"url":"/home","templates":[{"a":${deep(depth)}}]}`,
			);
			expect(expectError(res, 400, 'invalid_json').message).toMatch(/deeper than 1000 levels/);
			const objects = await sendJson(
				'POST',
				'/api/page',
				`{"url":"/deep","name":"d","locale":"en","x":${deep(depth, '{"a":', '}')}}`,
			);
			expectError(objects, 400, 'invalid_json');
			expect(
				expectOk(await t.api.get('/api/pages', { params: { url: '/home' } })).data[0].templates,
			).toEqual([]);
		},
	);

	it('1,000 levels are kept as sent; brackets inside strings do not count', async () => {
		// The body object, templates and its item make 3 levels.
		const templates = `[{"a":${deep(997)},"s":"${'['.repeat(5000)}\\"["}]`;
		expect(
			(await sendJson('PUT', '/api/content', `{"url":"/home","templates":${templates}}`)).status,
		).toBe(200);
		const page = expectOk(await t.api.get('/api/pages', { params: { url: '/home' } })).data[0];
		expect(JSON.stringify(page.templates)).toBe(JSON.stringify(JSON.parse(templates)));
	});
});

describe('page urls', () => {
	const refused: [string, string][] = [
		['protocol-relative', '//evil.com'],
		['protocol-relative with a path', '//evil.com/login'],
		['backslash (browsers read /\\ as //)', '/\\evil.com'],
		['NUL', '/a\u0000b'],
		['a control character', '/a\u0007b'],
		['DEL', '/a\u007f'],
		['a C1 control character', '/a\u0085b'],
		['right-to-left override', '/invoice\u202egpj.exe'],
		['left-to-right isolate', '/a\u2066b'],
		['right-to-left mark', '/a\u200fb'],
	];
	it.each(refused)(
		'%s: 400 naming url, on create, on content update and as a filter',
		async (_name, url) => {
			expect(
				detailFields(
					expectError(
						await t.api.post('/api/page', { url, name: 'x', locale: 'en' }),
						400,
						'validation_failed',
					),
				),
			).toEqual(['url']);
			expect(
				detailFields(
					expectError(
						await t.api.put('/api/content', { url, templates: [] }),
						400,
						'validation_failed',
					),
				),
			).toEqual(['url']);
			expect(
				detailFields(
					expectError(await t.api.delete('/api/page', { data: { url } }), 400, 'validation_failed'),
				),
			).toEqual(['url']);
		},
	);

	it('ordinary paths with percent-escapes and non-Latin letters are accepted (a query is not: docs/api-contract.md)', async () => {
		for (const url of ['/a/b', '/x%2Dy', '/caf\u00e9', '/\u65e5\u672c', '/a//b']) {
			expectOk(await t.api.post('/api/page', { url, name: 'x', locale: 'en' }), 201);
		}
	});
});

describe('invalid UTF-8 in a JSON body', () => {
	it.each([
		['a lone continuation byte', Buffer.from([0x80])],
		['a truncated sequence', Buffer.from([0xe2, 0x82])],
		['an overlong slash', Buffer.from([0xc0, 0xaf])],
		['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
	])('%s: 400 invalid_json, nothing stored', async (_name, bad) => {
		const body = Buffer.concat([
			Buffer.from('{"url":"/utf8","name":"x'),
			bad,
			Buffer.from('y","locale":"en"}'),
		]);
		expect(
			expectError(await sendJson('POST', '/api/page', body), 400, 'invalid_json').message,
		).toMatch(/UTF-8/);
		expect(expectOk(await t.api.get('/api/pages', { params: { url: '/utf8' } })).data).toEqual([]);
	});

	it('valid multi-byte UTF-8 is kept as sent', async () => {
		expect(
			(
				await sendJson(
					'POST',
					'/api/page',
					Buffer.from('{"url":"/utf8-ok","name":"\u00e9\u65e5\ud83d\ude00","locale":"en"}'),
				)
			).status,
		).toBe(201);
		expect(
			expectOk(await t.api.get('/api/pages', { params: { url: '/utf8-ok' } })).data[0].name,
		).toBe('\u00e9\u65e5\ud83d\ude00');
	});
});
