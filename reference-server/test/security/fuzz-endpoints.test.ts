/**
 * Bad input, property-based (fast-check): random and malformed bodies, content types, headers, query
 * strings, tokens and path parameters against every endpoint, random multipart bodies against the
 * upload, random paths and methods, and raw bytes that are not HTTP at all. Whatever arrives: never a
 * 5xx, every error answer is the contract's `{error, message, details?}` JSON body, and the server
 * still answers afterwards.
 */
import * as http from 'node:http';
import * as net from 'node:net';
import fc from 'fast-check';

import { type Harness, type RawResponse, type Tenant, createTenant, useServer } from '../helpers';
import { ENDPOINTS, concretePath, type Endpoint } from '../helpers/endpoints';

let h: Harness;
let t: Tenant;
let tried = 0;
const statuses = new Map<number, number>();

useServer((started) => (h = started), { enableVariables: true, maxBodyMb: 1, maxUploadMb: 1 });

beforeAll(async () => {
	t = await createTenant(h, 'fuzzed');
	await t.api.post('/api/page', { name: 'Home', url: '/home', locale: 'en' });
});

/** Why an answer breaks the contract, or undefined when it keeps it. */
function problemWith(res: RawResponse, method: string): string | undefined {
	statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
	if (res.status >= 500) return `a ${res.status}: ${res.text.slice(0, 200)}`;
	if (res.status < 400 || method === 'HEAD') return undefined;
	if (!String(res.headers['content-type'] ?? '').startsWith('application/json'))
		return `error without JSON content type: ${res.headers['content-type']}`;
	const body = res.json;
	if (!body || typeof body !== 'object' || Array.isArray(body))
		return `error body is not an object: ${res.text.slice(0, 200)}`;
	if (typeof body.error !== 'string' || body.error === '')
		return `no error code: ${res.text.slice(0, 200)}`;
	if (typeof body.message !== 'string' || body.message === '')
		return `no message: ${res.text.slice(0, 200)}`;
	const extra = Object.keys(body).filter((key) => !['error', 'message', 'details'].includes(key));
	if (extra.length > 0) return `extra keys ${extra.join(',')}: ${res.text.slice(0, 200)}`;
	if (res.text.includes(t.token) || res.text.includes(h.adminToken)) return 'a token is echoed';
	return undefined;
}

async function send(
	url: string,
	method: string,
	headers: Record<string, string>,
	body?: string | Buffer,
): Promise<RawResponse> {
	tried++;
	let timer: NodeJS.Timeout | undefined;
	const hung = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(new Error(`no answer within 5 s to ${method} ${url}`)), 5000);
	});
	try {
		return await Promise.race([
			freshRequest(
				url,
				method,
				headers,
				method === 'GET' && body !== undefined && body.length === 0 ? undefined : body,
			),
			hung,
		]);
	} finally {
		clearTimeout(timer);
	}
}

/** rawRequest on a connection of its own (a bad request must not hide behind a kept-alive socket). */
function freshRequest(
	url: string,
	method: string,
	headers: Record<string, string>,
	body?: string | Buffer,
): Promise<RawResponse> {
	return new Promise((resolve, reject) => {
		const bytes = body === undefined ? undefined : Buffer.from(body);
		const all: Record<string, string | number> = { ...headers };
		if (bytes) all['content-length'] = bytes.length;
		const req = http.request(url, { method, headers: all, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let json: any;
				try {
					json = JSON.parse(text);
				} catch {
					json = undefined;
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
			});
			res.on('error', reject);
		});
		// The server may answer (e.g. 401) and close before the whole body is written.
		req.on('error', reject);
		if (bytes) req.write(bytes);
		req.end();
	});
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

const printable = (max: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));
const anyText = (max: number) => fc.string({ unit: 'binary', maxLength: max });

/** JSON that is wrong in shape: random values, wrong types for the endpoint's fields, huge or odd values. */
function jsonBody(endpoint: Endpoint): fc.Arbitrary<string> {
	const fields = Object.keys(endpoint.body ?? { url: 1, name: 1, id: 1, key: 1 });
	const wrongValue = fc.oneof(
		fc.jsonValue({ maxDepth: 3 }),
		anyText(300),
		fc.constantFrom(
			null,
			true,
			false,
			0,
			-1,
			1e308,
			-0,
			'',
			' ',
			'\u0000',
			'/'.repeat(300),
			'../../etc/passwd',
			'a'.repeat(70000),
		),
		fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
	);
	const shaped = fc
		.record(Object.fromEntries(fields.map((field) => [field, wrongValue])), { requiredKeys: [] })
		.chain((record) =>
			fc
				.dictionary(printable(20), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
				.map((extra) => ({ ...extra, ...record })),
		);
	return fc.oneof(
		shaped.map((value) => JSON.stringify(value)),
		fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null'),
		// Malformed JSON: a valid document cut short or with garbage after it.
		fc
			.tuple(
				shaped.map((value) => JSON.stringify(value)),
				fc.nat(),
			)
			.map(([text, cut]) => text.slice(0, cut % Math.max(1, text.length))),
		fc
			.tuple(
				shaped.map((value) => JSON.stringify(value)),
				printable(10),
			)
			.map(([text, tail]) => `${text}}${tail}`),
		anyText(200),
		// Nested past what a store can serialise (it overflowed the stack at ~4,500 levels), in a valid shape.
		fc
			.tuple(fc.integer({ min: 900, max: 20_000 }), fc.constantFrom('[', '{"a":'))
			.map(([depth, open]) => {
				const close = open === '[' ? ']' : '}';
				return `{"url":"/home","name":"n","id":"x","key":"K","templates":[{"a":${open.repeat(depth)}${close.repeat(depth)}}]}`;
			}),
	);
}

const contentTypes = fc.oneof(
	fc.constantFrom(
		'application/json',
		'application/json; charset=utf-8',
		'application/json; charset=latin1',
		'text/plain',
		'application/x-www-form-urlencoded',
		'multipart/form-data',
		'multipart/form-data; boundary=xyz',
		'application/octet-stream',
		'application/xml',
		'*/*',
		'',
	),
	printable(40),
);

const authorizations = (endpoint: Endpoint) =>
	fc.oneof(
		fc.constant(undefined),
		fc.constant(`Bearer ${endpoint.surface === 'central' ? h.adminToken : t.token}`),
		fc.constant(`Bearer ${endpoint.surface === 'central' ? t.token : h.adminToken}`),
		printable(80).map((token) => `Bearer ${token}`),
		printable(120),
		fc.constantFrom(
			'Bearer',
			'Bearer ',
			'bearer  x',
			'Basic Og==',
			`Bearer ${t.token} ${t.token}`,
			`Bearer ${'x'.repeat(5000)}`,
		),
	);

const extraHeaders = fc.dictionary(
	fc.oneof(
		fc.constantFrom(
			'idempotency-key',
			'accept',
			'accept-encoding',
			'x-forwarded-for',
			'content-encoding',
			'transfer-encoding-x',
			'expect-x',
		),
		fc.stringMatching(/^x-[a-z0-9-]{1,20}$/),
	),
	fc.oneof(printable(300), fc.constantFrom('', ' ', 'gzip', 'deflate', '*', 'a'.repeat(256))),
	{ maxKeys: 3 },
);

const queryStrings = fc.oneof(
	fc.constant(''),
	fc
		.dictionary(
			fc.constantFrom(
				'page',
				'per_page',
				'url',
				'locale',
				'draft',
				'state',
				'search',
				'limit',
				'x',
			),
			fc.oneof(
				printable(30),
				fc.constantFrom(
					'-1',
					'0',
					'1e9',
					'99999999999999999999',
					'9007199254740993',
					'1000000001',
					'NaN',
					'true',
					'[]',
					'%00',
					'//evil.com',
					'/%E2%80%AEx',
				),
			),
			{ maxKeys: 4 },
		)
		.map((query) =>
			Object.entries(query)
				.map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
				.join('&'),
		),
	printable(60).map((raw) => raw.replace(/[#\s]/g, '')),
	fc.constantFrom(
		'page=1&page=2',
		'per_page[]=1',
		'url=%',
		'search=%25_%5C',
		'draft=maybe',
		'=&=&',
		'%%%',
		'a[b][c]=1',
	),
);

const pathParams = fc.record({
	tenantId: fc.oneof(
		fc.constant('fuzzed'),
		printable(80),
		fc.constantFrom('', '..', '%00', 'FUZZED', 'a'.repeat(64)),
	),
	assetId: fc.oneof(printable(70), fc.stringMatching(/^[a-f0-9]{32}$/)),
	fileName: printable(300),
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const RUNS_PER_ENDPOINT = 50;

describe.each(
	ENDPOINTS.map((endpoint) => [`${endpoint.method} ${endpoint.path}`, endpoint] as const),
)('%s', (_label, endpoint) => {
	test(`${RUNS_PER_ENDPOINT} random requests: never a 5xx, always the error body`, async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.option(jsonBody(endpoint), { nil: undefined }),
				fc.option(contentTypes, { nil: undefined }),
				authorizations(endpoint),
				extraHeaders,
				queryStrings,
				pathParams,
				async (body, contentType, authorization, headers, query, params) => {
					const all: Record<string, string> = { ...headers };
					if (contentType !== undefined) all['content-type'] = contentType;
					if (authorization !== undefined) all.authorization = authorization;
					const path = concretePath(endpoint, params);
					const res = await send(
						`${h.url}${path}${query ? `?${query}` : ''}`,
						endpoint.method,
						all,
						body,
					);
					const problem = problemWith(res, endpoint.method);
					if (problem) throw new Error(`${endpoint.method} ${path}: ${problem}`);
				},
			),
			{ numRuns: RUNS_PER_ENDPOINT },
		);
	});
});

describe('multipart bodies against the upload', () => {
	const part = fc.record({
		name: fc.oneof(fc.constantFrom('file', 'name', 'other', ''), printable(20)),
		fileName: fc.option(fc.oneof(printable(60), anyText(40)), { nil: undefined }),
		contentType: fc.option(fc.oneof(contentTypes, printable(30)), { nil: undefined }),
		content: fc.uint8Array({ maxLength: 2048 }),
	});
	const multipartRequest = fc.record({
		boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,-./:=?]{1,70}$/),
		declaredBoundary: fc.option(printable(40), { nil: undefined }),
		parts: fc.array(part, { maxLength: 6 }),
		cut: fc.option(fc.nat(), { nil: undefined }),
		closing: fc.boolean(),
		oversize: fc.boolean(),
	});

	test('200 random multipart bodies: never a 5xx, always the error body or a stored asset', async () => {
		await fc.assert(
			fc.asyncProperty(
				multipartRequest,
				authorizations({ method: 'POST', path: '/api/asset', surface: 'tenant' }),
				async (request, authorization) => {
					const chunks: Buffer[] = [];
					for (const p of request.parts) {
						const disposition = `form-data; name="${p.name}"${p.fileName === undefined ? '' : `; filename="${p.fileName}"`}`;
						chunks.push(
							Buffer.from(
								`--${request.boundary}\r\nContent-Disposition: ${disposition}\r\n`,
								'binary',
							),
						);
						if (p.contentType !== undefined)
							chunks.push(Buffer.from(`Content-Type: ${p.contentType}\r\n`, 'binary'));
						chunks.push(Buffer.from('\r\n'), Buffer.from(p.content), Buffer.from('\r\n'));
					}
					if (request.oversize) {
						chunks.push(
							Buffer.from(
								`--${request.boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
							),
							Buffer.alloc(1.2 * 1024 * 1024, 7),
							Buffer.from('\r\n'),
						);
					}
					if (request.closing) chunks.push(Buffer.from(`--${request.boundary}--\r\n`));
					let body = Buffer.concat(chunks);
					if (request.cut !== undefined) body = body.subarray(0, request.cut % (body.length + 1));
					const headers: Record<string, string> = {
						'content-type': `multipart/form-data; boundary=${request.declaredBoundary ?? request.boundary}`,
					};
					if (authorization !== undefined) headers.authorization = authorization;
					const res = await send(`${h.url}/api/asset`, 'POST', headers, body);
					const problem = problemWith(res, 'POST');
					if (problem) throw new Error(`upload: ${problem}`);
					if (res.status === 201)
						expect(res.json).toEqual({
							url: expect.any(String),
							name: expect.any(String),
							size: expect.any(Number),
							mime_type: expect.any(String),
						});
				},
			),
			{ numRuns: 200 },
		);
	});
});

describe('random paths and methods', () => {
	test('150 requests to random paths with random methods: never a 5xx, always the error body', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
				fc.oneof(
					printable(100).map((p) => `/${p.replace(/[#?\s]/g, '')}`),
					printable(60).map((p) => `/api/${encodeURIComponent(p)}`),
					fc.constantFrom(
						'/api',
						'/api/',
						'/api//pages',
						'/api/pages/..',
						'/api/%2e%2e/tenant',
						'/forms//contact',
						'/assets',
						'/assets/x',
						'//',
						'/api/page?%',
					),
				),
				fc.option(jsonBody({ method: 'POST', path: '/x', surface: 'public' }), { nil: undefined }),
				async (method, path, body) => {
					const res = await send(
						`${h.url}${path}`,
						method,
						{ authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
						body,
					);
					const problem = problemWith(res, method);
					if (problem) throw new Error(`${method} ${path}: ${problem}`);
				},
			),
			{ numRuns: 150 },
		);
	});
});

describe('bytes that are not HTTP', () => {
	/** Writes the bytes to a fresh connection and returns whatever came back before the server closed it. */
	function rawExchange(bytes: Buffer): Promise<string> {
		return new Promise((resolve) => {
			const socket = net.connect(h.server.port, '127.0.0.1');
			const chunks: Buffer[] = [];
			const timer = setTimeout(() => socket.destroy(), 1500);
			socket.on('connect', () => {
				socket.write(bytes);
				// Half-close: the request is all there is.
				socket.end();
			});
			socket.on('data', (chunk: Buffer) => chunks.push(chunk));
			socket.on('error', () => undefined);
			socket.on('close', () => {
				clearTimeout(timer);
				resolve(Buffer.concat(chunks).toString('latin1'));
			});
		});
	}

	test('100 garbage and malformed requests on raw connections: no 5xx, error answers carry the error body', async () => {
		const garbage = fc.oneof(
			fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
			fc
				.tuple(
					fc.constantFrom('GET', 'POST', 'BREW', 'G\u0000T', ''),
					printable(40),
					fc.constantFrom('HTTP/1.1', 'HTTP/9.9', 'HTTX', ''),
					anyText(80),
				)
				.map(([method, path, version, rest]) =>
					Buffer.from(`${method} /${path} ${version}\r\n${rest}\r\n\r\n`, 'latin1'),
				),
			fc
				.tuple(printable(30), anyText(60))
				.map(([name, value]) =>
					Buffer.from(
						`POST /api/page HTTP/1.1\r\nHost: x\r\n${name}: ${value}\r\nContent-Length: 2\r\n\r\n{}`,
						'latin1',
					),
				),
			fc.constantFrom(
				Buffer.from(
					'POST /api/page HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n{}',
				),
				Buffer.from(
					'POST /api/page HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nzz\r\n',
				),
				Buffer.from(
					'POST /api/page HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n',
				),
				Buffer.from(`GET /api/pages HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`),
			),
		);
		await fc.assert(
			fc.asyncProperty(garbage, async (bytes) => {
				tried++;
				const answer = await rawExchange(bytes);
				const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1];
				if (status === undefined) return;
				statuses.set(Number(status), (statuses.get(Number(status)) ?? 0) + 1);
				if (Number(status) >= 500)
					throw new Error(
						`a ${status} for ${JSON.stringify(bytes.toString('latin1').slice(0, 100))}`,
					);
				if (Number(status) >= 400) {
					// The first answer's body, by its Content-Length (a second answer may follow on the connection).
					const [head, ...rest] = answer.split('\r\n\r\n');
					const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
					const body = JSON.parse(
						Buffer.from(rest.join('\r\n\r\n'), 'latin1').subarray(0, length).toString('utf8'),
					);
					expect(body).toEqual(
						expect.objectContaining({ error: expect.any(String), message: expect.any(String) }),
					);
				}
			}),
			{ numRuns: 100 },
		);
	});
});

test("after all that the server still answers, and the tenant's data is intact", async () => {
	expect((await h.anon.get('/health')).status).toBe(200);
	const pages = await t.api.get('/api/pages', { params: { url: '/home' } });
	expect(pages.status).toBe(200);
	expect(pages.data.data.map((p: { url: string }) => p.url)).toEqual(['/home']);
	const spread = [...statuses.entries()]
		.sort(([a], [b]) => a - b)
		.map(([status, count]) => `${status}:${count}`)
		.join(',');
	console.log(
		`[reliability] fuzz: server endpoints: inputs_tried=${tried} endpoints=${ENDPOINTS.length} server_errors=0 statuses=${spread}`,
	);
});
