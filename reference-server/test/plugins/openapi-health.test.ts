/**
 * GET /health and GET /openapi.json: an OpenAPI 3.1 document listing every call of the contract and
 * marking what goes beyond service-api.md as an extension.
 */
import { type Harness, useServer } from '../helpers';

let h: Harness;
let doc: any;

useServer((started) => (h = started), { enableVariables: true });

beforeAll(async () => {
	const res = await h.anon.get('/openapi.json');
	expect(res.status).toBe(200);
	doc = res.data;
});

/** Every call of contract.md, as [method, path]. */
const CONTRACT_CALLS: Array<[string, string]> = [
	['post', '/api/tenant'],
	['put', '/api/tenant'],
	['delete', '/api/tenant'],
	['post', '/api/tenant/token'],
	['get', '/api/pages'],
	['post', '/api/page'],
	['delete', '/api/page'],
	['put', '/api/content'],
	['post', '/api/asset'],
	['post', '/api/settings'],
	['post', '/api/sitemap'],
	['post', '/api/notifications'],
	['get', '/api/variables'],
	['put', '/api/variables'],
	['delete', '/api/variables'],
];

/** Calls that service-api.md itself lists: these are not extensions. */
const SERVICE_API_CALLS: Array<[string, string]> = CONTRACT_CALLS.filter(
	([, p]) => p !== '/api/variables',
);

/** Extensions named by the contract and the issue. */
const EXTENSION_CALLS: Array<[string, RegExp]> = [
	['get', /^\/api\/contact-form\/deliveries$/],
	['post', /^\/forms\/\{[^}]+\}\/contact$/],
	['get', /^\/health$/],
	['get', /^\/api\/tenants$/],
];

function operation(method: string, path: string): any {
	return doc.paths?.[path]?.[method];
}

function findPath(pattern: RegExp): string | undefined {
	return Object.keys(doc.paths ?? {}).find((p) => pattern.test(p));
}

function isExtension(method: string, path: string): boolean {
	const op = operation(method, path);
	return op?.['x-extension'] === true || doc.paths?.[path]?.['x-extension'] === true;
}

describe('GET /health', () => {
	it('answers 200 with a JSON object and needs no token', async () => {
		const res = await h.anon.get('/health');
		expect(res.status).toBe(200);
		expect(typeof res.data).toBe('object');
		expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
	});
});

describe('GET /openapi.json', () => {
	it('is an OpenAPI 3.1 document with info and paths', () => {
		expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
		expect(typeof doc.info?.title).toBe('string');
		expect(typeof doc.info?.version).toBe('string');
		expect(typeof doc.paths).toBe('object');
	});

	it.each(CONTRACT_CALLS)('lists %s %s with responses', (method, path) => {
		const op = operation(method, path);
		expect({ method, path, present: op !== undefined }).toEqual({ method, path, present: true });
		expect(Object.keys(op.responses ?? {}).length).toBeGreaterThan(0);
	});

	it.each(SERVICE_API_CALLS)('does not mark %s %s as an extension', (method, path) => {
		expect(isExtension(method, path)).toBe(false);
	});

	it.each(EXTENSION_CALLS)('lists %s %s and marks it x-extension: true', (method, pattern) => {
		const path = findPath(pattern);
		expect({ pattern: String(pattern), path }).toEqual({
			pattern: String(pattern),
			path: expect.any(String),
		});
		expect(operation(method, path!)).toBeDefined();
		expect(isExtension(method, path!)).toBe(true);
	});

	it('documents the success statuses of the contract', () => {
		expect(operation('post', '/api/page').responses).toHaveProperty('201');
		expect(operation('post', '/api/asset').responses).toHaveProperty('201');
		expect(operation('post', '/api/tenant').responses).toHaveProperty('200');
		expect(operation('get', '/api/pages').responses).toHaveProperty('200');
		const form = findPath(/^\/forms\/\{[^}]+\}\/contact$/)!;
		expect(operation('post', form).responses).toHaveProperty('202');
	});

	it('documents the request bodies of the contract (required fields)', () => {
		const schemaOf = (method: string, path: string) =>
			operation(method, path)?.requestBody?.content?.['application/json']?.schema;
		expect(schemaOf('post', '/api/tenant')?.required).toEqual(expect.arrayContaining(['id']));
		// old_id is needed only for a rename (service-api.md: "when the identifier is being changed")
		expect(schemaOf('put', '/api/tenant')?.required).toEqual(expect.arrayContaining(['id']));
		expect(Object.keys(schemaOf('put', '/api/tenant')?.properties ?? {})).toEqual(
			expect.arrayContaining(['old_id', 'id', 'fqdn']),
		);
		expect(schemaOf('post', '/api/page')?.required).toEqual(
			expect.arrayContaining(['name', 'url', 'locale']),
		);
		expect(schemaOf('put', '/api/content')?.required).toEqual(
			expect.arrayContaining(['url', 'templates']),
		);
		expect(schemaOf('post', '/api/notifications')?.properties?.status?.enum?.sort()).toEqual([
			'error',
			'info',
			'success',
			'warning',
		]);
		const upload = operation('post', '/api/asset')?.requestBody?.content;
		expect(upload).toHaveProperty(['multipart/form-data']);
	});

	it('documents the pages query parameters with per_page at most 100', () => {
		const params: any[] = operation('get', '/api/pages').parameters ?? [];
		const byName = Object.fromEntries(
			params.filter((p) => p.in === 'query').map((p) => [p.name, p]),
		);
		expect(Object.keys(byName)).toEqual(
			expect.arrayContaining(['page', 'per_page', 'url', 'locale', 'draft']),
		);
		expect(byName.per_page.schema.maximum).toBe(100);
	});

	it('documents the tenants listing: admin token, per_page at most 100, search', () => {
		const op = operation('get', '/api/tenants');
		expect(op.security).toEqual([{ adminToken: [] }]);
		const byName = Object.fromEntries(
			(op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => [p.name, p]),
		);
		expect(Object.keys(byName).sort()).toEqual(['page', 'per_page', 'search']);
		expect(byName.per_page.schema.maximum).toBe(100);
		const item = op.responses['200'].content['application/json'].schema.properties.data.items;
		expect(item.required.sort()).toEqual(['created_at', 'fqdn', 'id']);
	});

	it("marks the sitemap's tenant_id as an extension (not required)", () => {
		const schema = operation('post', '/api/sitemap').responses['200'].content['application/json']
			.schema;
		expect(schema.properties.tenant_id).toEqual(
			expect.objectContaining({ type: 'string', 'x-extension': true }),
		);
		expect(schema.required).not.toContain('tenant_id');
	});

	it('marks the Idempotency-Key header as an extension', () => {
		const params: any[] = operation('post', '/api/page').parameters ?? [];
		const header = params.find(
			(p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
		);
		expect(header).toBeDefined();
		expect(header['x-extension'] === true || header.schema?.['x-extension'] === true).toBe(true);
	});
});
