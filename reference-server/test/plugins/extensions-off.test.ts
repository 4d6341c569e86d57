/**
 * `--no-extensions` (`extensions: false`): the server answers as a deployment of the described
 * service would. Extension routes are gone (404, or 405 where the described API has the path with
 * another method), extension answer fields are not sent, `search` and `Idempotency-Key` are ignored,
 * and the OpenAPI document leaves all of it out; what the contract decides stays.
 */
import type { AxiosResponse } from 'axios';

import { ConfigError, parseCommandLine, resolveConfig } from '../../src';
import { usage } from '../../src/config';
import {
	type Harness,
	Receiver,
	createPage,
	createTenant,
	expectError,
	expectOk,
	setWebhook,
	submitForm,
	uniqueId,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
useServer((started) => (h = started), { extensions: false, enableVariables: true });

describe('the switch', () => {
	test('--no-extensions and SITE_SERVER_NO_EXTENSIONS turn the extensions off; on by default', () => {
		const of = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
			const parsed = parseCommandLine(argv, env);
			if (parsed.help) throw new Error('unexpected --help');
			return resolveConfig(parsed.options).extensions;
		};
		expect(of([])).toBe(true);
		expect(of(['--no-extensions'])).toBe(false);
		expect(of([], { SITE_SERVER_NO_EXTENSIONS: 'true' })).toBe(false);
		expect(of([], { SITE_SERVER_NO_EXTENSIONS: '0' })).toBe(true);
		expect(() => of([], { SITE_SERVER_NO_EXTENSIONS: 'maybe' })).toThrow(
			/SITE_SERVER_NO_EXTENSIONS: expected true or false/,
		);
		expect(usage()).toMatch(/--no-extensions .*\n\s+env SITE_SERVER_NO_EXTENSIONS/);
	});

	test('startServer({ extensions }) takes only a boolean, naming the field', () => {
		expect(() => resolveConfig({ extensions: 'no' as unknown as boolean })).toThrow(ConfigError);
		expect(() => resolveConfig({ extensions: 'no' as unknown as boolean })).toThrow(
			/extensions must be true or false/,
		);
	});
});

describe('extension routes are not there', () => {
	test('each extension call answers 404, or 405 where the described API has the path', async () => {
		const t = await createTenant(h);
		const body = { consumer: 'c', key: 'k' };
		const gone: Array<[string, Promise<AxiosResponse>]> = [
			['GET /api/tenants', h.admin.get('/api/tenants')],
			['GET /api/contact-form/deliveries', t.api.get('/api/contact-form/deliveries')],
			['POST /api/contact-form/claims', t.api.post('/api/contact-form/claims', body)],
			['DELETE /api/contact-form/claims', t.api.delete('/api/contact-form/claims', { data: body })],
			['POST /forms/{id}/claims', h.anon.post(`/forms/${t.id}/claims`, body)],
			[
				'POST /api/contact-form/test-webhooks',
				t.api.post('/api/contact-form/test-webhooks', { url: 'http://127.0.0.1:9/x', headers: {} }),
			],
			['GET /api/contact-form/test-webhooks', t.api.get('/api/contact-form/test-webhooks')],
			[
				'DELETE /api/contact-form/test-webhooks',
				t.api.delete('/api/contact-form/test-webhooks', { data: { url: 'http://127.0.0.1:9/x' } }),
			],
		];
		for (const [call, answer] of gone) {
			const response = await answer;
			expect([call, response.status]).toEqual([call, 404]);
			expectError(response, 404, 'not_found');
		}
		for (const path of ['/api/settings', '/api/notifications']) {
			const response = await t.api.get(path);
			expectError(response, 405, 'method_not_allowed');
			expect(response.headers.allow).toBe('POST');
		}
	});

	test('GET /health and GET /openapi.json stay: they are how one runs the server', async () => {
		expect(expectOk(await h.anon.get('/health'))).toEqual({ status: 'ok' });
		expect(expectOk(await h.anon.get('/openapi.json')).openapi).toBe('3.1.0');
	});
});

describe('extension fields and parameters', () => {
	test('the sitemap has no tenant_id', async () => {
		const t = await createTenant(h);
		await createPage(t, '/about');
		const sitemap = expectOk(await t.api.post('/api/sitemap', {}));
		expect(Object.keys(sitemap).sort()).toEqual(['generated_at', 'pages']);
		expect(sitemap.pages.map((page: { url: string }) => page.url)).toEqual(['/about']);
	});

	test('search on GET /api/pages is ignored, at any length, like any unknown parameter', async () => {
		const t = await createTenant(h);
		for (const url of ['/alpha', '/beta', '/gamma']) await createPage(t, url);
		for (const search of ['alpha', 'x'.repeat(300)]) {
			const listed = expectOk(await t.api.get('/api/pages', { params: { search } }));
			expect(listed.data.map((page: { url: string }) => page.url)).toEqual([
				'/alpha',
				'/beta',
				'/gamma',
			]);
			expect(listed.meta.total).toBe(3);
		}
	});

	test('Idempotency-Key is ignored: a repeat is done again, not replayed', async () => {
		const t = await createTenant(h);
		const headers = { 'Idempotency-Key': uniqueId('key') };
		const first = await t.api.post(
			'/api/page',
			{ name: 'P', url: '/p', locale: 'en' },
			{ headers },
		);
		expectOk(first, 201);
		const repeat = await t.api.post(
			'/api/page',
			{ name: 'P', url: '/p', locale: 'en' },
			{ headers },
		);
		expectError(repeat, 409, 'conflict');
		expect(repeat.headers['idempotent-replayed']).toBeUndefined();
	});
});

describe('what the contract decides stays', () => {
	test('a token with expires_in and revoke_previous; variables behind --enable-variables', async () => {
		const id = uniqueId('tenant');
		expectOk(await h.admin.post('/api/tenant', { id }));
		const token = expectOk(
			await h.admin.post('/api/tenant/token', { id, expires_in: 60, revoke_previous: true }),
		);
		expect(typeof token.expires_at).toBe('string');
		const t = await createTenant(h);
		expectOk(await t.api.put('/api/variables', { key: 'k', value: 'v' }));
	});

	test('the webhook settings are saved and answered, and a submission is delivered there', async () => {
		const t = await createTenant(h);
		const receiver = await new Receiver().start();
		try {
			await setWebhook(t, receiver.url, { 'X-Site-Webhook-Secret': 's'.repeat(32) });
			const saved = expectOk(await t.api.post('/api/settings', {})).settings;
			expect(saved.contact_form_webhook_url).toBe(receiver.url);
			const submissionId = await submitForm(h, t.id, { name: 'Ada' });
			const [delivery] = await waitFor(() => {
				const got = receiver.for(submissionId);
				return got.length > 0 ? got : undefined;
			});
			expect(delivery.json.fields).toEqual({ name: 'Ada' });
			expect(delivery.headers['x-site-webhook-secret']).toBe('s'.repeat(32));
		} finally {
			await receiver.stop();
		}
		// Unknown body fields are still refused, naming them.
		const unknown = await t.api.post('/api/settings', { webhook: 'x' });
		expect(expectError(unknown, 400, 'validation_failed').details).toEqual([
			expect.objectContaining({ field: 'webhook' }),
		]);
	});
});

describe('the OpenAPI document leaves out what is off', () => {
	const KEPT = new Set([
		'get /health',
		'get /openapi.json',
		'post /forms/{tenantId}/contact',
		'get /assets/{assetId}/{fileName}',
	]);

	/** Places in `value` marked `x-extension` without `x-contract-decided`. */
	function extensionsIn(value: unknown, at: string, found: string[] = []): string[] {
		if (typeof value !== 'object' || value === null) return found;
		const record = value as Record<string, unknown>;
		if (record['x-extension'] === true && record['x-contract-decided'] !== true) found.push(at);
		for (const [key, entry] of Object.entries(record)) extensionsIn(entry, `${at}.${key}`, found);
		return found;
	}

	test('no extension operation, parameter, header or field but the kept operations', async () => {
		const doc = expectOk(await h.anon.get('/openapi.json'));
		const operations = Object.entries(doc.paths as Record<string, Record<string, object>>).flatMap(
			([path, item]) =>
				Object.entries(item).map(([method, op]) => [`${method} ${path}`, op] as const),
		);
		const names = operations.map(([name]) => name);
		expect(names).not.toContain('get /api/tenants');
		expect(names).not.toContain('get /api/settings');
		expect(names.filter((name) => /claims|test-webhooks|deliveries/.test(name))).toEqual([]);

		const markedOperations = operations
			.filter(
				([, op]) =>
					extensionsIn({ ...op, parameters: [], requestBody: {}, responses: {} }, '').length > 0,
			)
			.map(([name]) => name);
		expect(markedOperations.sort()).toEqual([...KEPT].sort());
		const markedInside = operations.flatMap(([name, op]) =>
			extensionsIn({ ...op, 'x-extension': false }, name),
		);
		expect(markedInside).toEqual([]);

		const sitemap = doc.paths['/api/sitemap'].post.responses['200'].content['application/json'];
		expect(Object.keys(sitemap.schema.properties)).not.toContain('tenant_id');
		expect(JSON.stringify(doc.paths)).not.toMatch(/Idempotency-Key|Idempotent-Replayed/);
		expect(JSON.stringify(doc.paths['/api/pages'].get.parameters)).not.toMatch(/"search"/);
		// The contract's fields are there, still marked as beyond service-api.md.
		const settings = doc.paths['/api/settings'].post.requestBody.content['application/json'];
		expect(settings.schema.properties.contact_form_webhook_url['x-contract-decided']).toBe(true);
		expect(doc.info.description).toMatch(/--no-extensions/);
	});
});
