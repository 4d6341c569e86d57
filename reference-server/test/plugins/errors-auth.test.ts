/**
 * Authentication on both surfaces and the error classes of the contract that are not tied to one call:
 * invalid JSON, wrong content type, unknown routes; error bodies never echo a token.
 */
import FormData from 'form-data';

import {
	type Harness,
	type Tenant,
	client,
	createTenant,
	expectError,
	expectNoSecrets,
	rawRequest,
	useServer,
} from '../helpers';

let h: Harness;
let t: Tenant;

useServer((started) => (h = started), { enableVariables: true });

beforeAll(async () => {
	t = await createTenant(h);
});

type Call = [method: 'get' | 'post' | 'put' | 'delete', path: string, body?: unknown];

const centralCalls: Call[] = [
	['get', '/api/tenants'],
	['post', '/api/tenant', { id: 'auth-probe' }],
	['put', '/api/tenant', { old_id: 'auth-probe', id: 'auth-probe-2' }],
	['delete', '/api/tenant', { id: 'auth-probe' }],
	['post', '/api/tenant/token', { id: 'auth-probe' }],
];

const tenantCalls: Call[] = [
	['get', '/api/pages'],
	['post', '/api/page', { name: 'A', url: '/auth-probe', locale: 'en' }],
	['delete', '/api/page', { url: '/auth-probe' }],
	['put', '/api/content', { url: '/auth-probe', templates: [] }],
	['post', '/api/settings', { noindex: 1 }],
	['post', '/api/sitemap', {}],
	['post', '/api/notifications', { id: 'n', message: 'm', status: 'info' }],
	['get', '/api/variables'],
	['put', '/api/variables', { key: 'k', value: 'v' }],
	['delete', '/api/variables', { key: 'k' }],
	['get', '/api/contact-form/deliveries'],
];

function send(api: ReturnType<typeof client>, [method, path, body]: Call) {
	if (method === 'get') return api.get(path);
	if (method === 'delete') return api.delete(path, { data: body });
	return api[method](path, body);
}

function withAuth(header: string | undefined) {
	const api = client(h.url);
	if (header !== undefined) api.defaults.headers.common.Authorization = header;
	return api;
}

describe('central surface', () => {
	it.each(centralCalls)('%s %s: no token -> 401', async (...call) => {
		expectError(await send(h.anon, call), 401, 'unauthorized');
	});

	it.each(centralCalls)('%s %s: unknown token -> 401', async (...call) => {
		expectError(await send(client(h.url, 'sat_' + 'x'.repeat(43)), call), 401, 'unauthorized');
	});

	it.each(centralCalls)('%s %s: tenant token -> 403 forbidden', async (...call) => {
		expectError(await send(t.api, call), 403, 'forbidden');
	});

	it('rejects a malformed Authorization header with 401', async () => {
		for (const header of [
			'Basic YWRtaW46YWRtaW4=',
			'Bearer',
			'Bearer ',
			h.adminToken,
			`Token ${h.adminToken}`,
		]) {
			const res = await send(withAuth(header), ['post', '/api/tenant', { id: 'malformed-auth' }]);
			expectError(res, 401, 'unauthorized');
		}
		// and nothing was created by any of them
		const token = await h.admin.post('/api/tenant/token', { id: 'malformed-auth' });
		expectError(token, 404, 'not_found');
	});

	it('a tenant token on the central surface does not act: nothing is created', async () => {
		expectError(await t.api.post('/api/tenant', { id: 'sneaky' }), 403, 'forbidden');
		expectError(await h.admin.post('/api/tenant/token', { id: 'sneaky' }), 404, 'not_found');
	});

	it('accepts the scheme case-insensitively', async () => {
		const api = withAuth(`bearer ${h.adminToken}`);
		const res = await api.post('/api/tenant', { id: 'lower-bearer' });
		expect(res.status).toBe(200);
	});
});

describe('tenant surface', () => {
	it.each(tenantCalls)('%s %s: no token -> 401', async (...call) => {
		expectError(await send(h.anon, call), 401, 'unauthorized');
	});

	it.each(tenantCalls)('%s %s: unknown token -> 401', async (...call) => {
		expectError(await send(client(h.url, 'garbage-token-value'), call), 401, 'unauthorized');
	});

	it.each(tenantCalls)('%s %s: admin token -> 403 forbidden', async (...call) => {
		expectError(await send(h.admin, call), 403, 'forbidden');
	});

	it('an admin token on the tenant surface does not act: nothing is created', async () => {
		expectError(
			await h.admin.post('/api/page', { name: 'A', url: '/admin-made', locale: 'en' }),
			403,
			'forbidden',
		);
		const list = await t.api.get('/api/pages', { params: { url: '/admin-made' } });
		expect(list.data.data).toEqual([]);
	});

	it('a revoked token answers 401', async () => {
		const tt = await createTenant(h);
		const rotated = await h.admin.post('/api/tenant/token', { id: tt.id, revoke_previous: true });
		expect(rotated.status).toBe(200);
		expectError(await tt.api.get('/api/pages'), 401, 'unauthorized');
	});

	it('a token with extra characters is unknown', async () => {
		expectError(await client(h.url, t.token + 'x').get('/api/pages'), 401, 'unauthorized');
		expectError(await client(h.url, t.token.slice(0, -1)).get('/api/pages'), 401, 'unauthorized');
	});
});

describe('error bodies never echo a token', () => {
	it('401, 403, 400 and 404 bodies and headers carry no token', async () => {
		const bogus = 'sat_bogus_' + 'q'.repeat(40);
		const answers = [
			await client(h.url, bogus).get('/api/pages'),
			await h.admin.get('/api/pages'),
			await t.api.post('/api/tenant', { id: 'x' }),
			await t.api.post('/api/page', { name: t.token, url: t.token, locale: 5 }),
			await h.admin.post('/api/tenant', { id: 'UPPER' + h.adminToken, fqdn: t.token }),
			await h.admin.post('/api/tenant/token', { id: 'unknown-tenant-x' }),
		];
		for (const res of answers) {
			expect(res.status).toBeGreaterThanOrEqual(400);
			expect(JSON.stringify(res.data)).not.toContain(bogus);
			expectNoSecrets(res.data);
			expectNoSecrets(res.headers);
		}
	});
});

describe('400 invalid_json', () => {
	it.each([
		['a broken object', '{"name": "x", '],
		['a bare word', 'hello'],
		['trailing garbage', '{"name":"x"} trailing'],
	])('answers 400 invalid_json for %s', async (_label, body) => {
		const res = await rawRequest(`${h.url}/api/page`, {
			method: 'POST',
			headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
			body,
		});
		expectError(res, 400, 'invalid_json');
	});

	it('on the central surface and on DELETE too', async () => {
		const central = await rawRequest(`${h.url}/api/tenant`, {
			method: 'POST',
			headers: { authorization: `Bearer ${h.adminToken}`, 'content-type': 'application/json' },
			body: '{id:',
		});
		expectError(central, 400, 'invalid_json');
		const del = await rawRequest(`${h.url}/api/page`, {
			method: 'DELETE',
			headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
			body: '{"url": ',
		});
		expectError(del, 400, 'invalid_json');
	});

	it('valid JSON that is not an object answers 400 validation_failed', async () => {
		for (const body of ['[]', '"text"', '42', 'null']) {
			const res = await rawRequest(`${h.url}/api/settings`, {
				method: 'POST',
				headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
				body,
			});
			expect([400]).toContain(res.status);
			expect(['validation_failed', 'invalid_json']).toContain(res.json?.error);
			expectError(res, 400, res.json.error);
		}
	});
});

describe('415 unsupported_media_type', () => {
	it('a JSON endpoint sent multipart form data', async () => {
		const f = new FormData();
		f.append('name', 'A');
		f.append('url', '/form');
		f.append('locale', 'en');
		const res = await t.api.post('/api/page', f, { headers: f.getHeaders() });
		expectError(res, 415, 'unsupported_media_type');
	});

	it('a JSON endpoint sent urlencoded form data or plain text', async () => {
		const urlencoded = await rawRequest(`${h.url}/api/settings`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${t.token}`,
				'content-type': 'application/x-www-form-urlencoded',
			},
			body: 'noindex=1',
		});
		expectError(urlencoded, 415, 'unsupported_media_type');
		const text = await rawRequest(`${h.url}/api/tenant`, {
			method: 'POST',
			headers: { authorization: `Bearer ${h.adminToken}`, 'content-type': 'text/plain' },
			body: '{"id":"plain"}',
		});
		expectError(text, 415, 'unsupported_media_type');
	});
});

describe('unknown routes and methods', () => {
	it('answers 404 not_found with the error body', async () => {
		expectError(await t.api.get('/api/does-not-exist'), 404, 'not_found');
		expectError(await h.anon.get('/nothing-here'), 404, 'not_found');
	});
});

describe('public contact form', () => {
	it('answers 404 for an unknown tenant and 400 for a body that is not an object', async () => {
		expectError(
			await h.anon.post('/forms/no-such-tenant/contact', { email: 'a@b.c' }),
			404,
			'not_found',
		);
		const res = await rawRequest(`${h.url}/forms/${t.id}/contact`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '[1,2]',
		});
		expect(res.status).toBe(400);
		expectError(res, 400, res.json.error);
		const broken = await rawRequest(`${h.url}/forms/${t.id}/contact`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{"a":',
		});
		expectError(broken, 400, 'invalid_json');
	});
});
