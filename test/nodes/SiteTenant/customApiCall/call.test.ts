/** Tenant node, Custom API Call. */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Custom API Call', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('custom');
		await seedPages(tenant.client, [
			{ url: '/x', locale: 'en' },
			{ url: '/y', locale: 'de' },
		]);
	});
	const call = (parameters: Record<string, unknown>, extra = {}) =>
		tenant.run({ resource: 'customApiCall', operation: 'call', ...parameters }, extra);

	test('GET with query parameters returns the response body', async () => {
		const result = await call({
			method: 'GET',
			path: '/api/pages',
			queryParameters: { parameter: [{ name: 'locale', value: 'de' }] },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ data: [{ url: '/y' }], meta: { total: 1 } });
	});

	test('POST, PUT and DELETE with a JSON body, authenticated by the node credential', async () => {
		const created = await call({
			method: 'POST',
			path: '/api/page',
			body: '{"name": "Z", "url": "/z", "locale": "en"}',
		});
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ page: { url: '/z' } });

		const put = await call({
			method: 'PUT',
			path: 'api/content',
			body: '={{ JSON.stringify({ url: "/z", templates: [{ type: "t" }] }) }}',
		});
		expect(put.error).toBeUndefined();
		expect((await readPage(tenant.client, '/z'))?.templates).toEqual([{ type: 't' }]);

		const deleted = await call({ method: 'DELETE', path: '/api/page', body: '{"url": "/z"}' });
		expect(deleted.error).toBeUndefined();
		expect(await readPage(tenant.client, '/z')).toBeUndefined();
	});

	test('an endpoint the server does not have (e.g. a chatbot) answers 404 as an error', async () => {
		const result = await call(
			{ method: 'POST', path: '/api/chatbot', body: '{"message": "hi"}' },
			{ continueOnFail: true },
		);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ httpCode: '404' });
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
	});

	describe('paths outside /api/ are refused before anything is sent', () => {
		let trap: Server;
		let hits = 0;
		let trapUrl: string;
		beforeAll(async () => {
			trap = createServer((request, response) => {
				hits++;
				response.end('{}');
			});
			await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
			trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
		});
		afterAll(async () => {
			await new Promise((resolve) => trap.close(resolve));
		});

		test.each([
			['a full URL', () => `${trapUrl}/api/pages`, /not a full URL/],
			[
				'a protocol-relative URL',
				() => `${trapUrl.replace('http:', '')}/api/pages`,
				/not a full URL/,
			],
			[
				'a climb out of /api/',
				() => '/api/../api/tenant',
				/must not contain "\." or "\.\." segments/,
			],
			['an encoded climb', () => '/api/%2e%2e/health', /must not contain "\." or "\.\." segments/],
			['a backslash', () => '/api\\..\\health', /backslashes/],
			['a path outside /api/', () => '/health', /must start with \/api\//],
			['the bare /api/', () => '/api/', /must start with \/api\//],
		])('%s', async (_label, path, message) => {
			const before = hits;
			const result = await call({ method: 'GET', path: path() }, { continueOnFail: true });
			expect(result.items).toHaveLength(1);
			expect(String(result.items[0].json.error)).toMatch(message);
			expect(hits).toBe(before);
		});

		// URL parsing drops tabs and newlines, so `.\t.` became `..` after the `..` check and
		// the token went to `<base>/../x`. The base URL has a path of its own here (`/site`).
		test.each([
			['tabs', '/api/.\t./.\t./.\t./x'],
			['newlines', '/api/.\n./.\r\n./x'],
			['a NUL', '/api/pages\u0000'],
			['DEL', '/api/\u007f/pages'],
		])('a path with %s is refused, and nothing reaches any address', async (_label, path) => {
			const credential = ctx.runner.credentials.add('siteTenantApi', {
				baseUrl: `${trapUrl}/site`,
				token: tenant.token,
			});
			const before = hits;
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: credential,
				parameters: { resource: 'customApiCall', operation: 'call', method: 'GET', path },
				continueOnFail: true,
			});
			expect(String(result.items[0].json.error)).toBe(
				'Path must not contain control characters (tabs, newlines...)',
			);
			expect(hits).toBe(before);
		});

		test('the trap itself is reachable (so the check above could fail)', async () => {
			const before = hits;
			await fetch(`${trapUrl}/api/pages`);
			expect(hits).toBe(before + 1);
		});
	});

	test('a JSON body that is not JSON fails before sending', async () => {
		const result = await call({
			method: 'POST',
			path: '/api/page',
			body: '{"name": "Q", "url": "/q",',
		});
		expect(result.error?.message).toMatch(/^JSON Body must be a JSON object; it is not valid JSON/);
		expect(await readPage(tenant.client, '/q')).toBeUndefined();
	});
});
