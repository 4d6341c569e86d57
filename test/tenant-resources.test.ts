/**
 * Tenant node, everything but pages, assets and AI: Content, Settings, Sitemap, Notification,
 * Variable and the Custom API Call.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

import { startTestSite } from './helpers/reference-server';
import { jsonOf, readPage, seedPages, useNodeTestContext, type TenantContext } from './helpers/nodes';

const ctx = useNodeTestContext();

describe('Content > Update', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('content');
		await seedPages(tenant.client, [{ url: '/home', name: 'Home' }, { url: '/other' }]);
	});

	const update = (parameters: Record<string, unknown>, extra = {}) =>
		tenant.run({ resource: 'content', operation: 'update', url: '/home', ...parameters }, extra);

	test('replaces templates and banner and outputs the updated page', async () => {
		const templates = [
			{ type: 'heading', text: 'Welcome' },
			{ type: 'text', text: 'Ünïcödé ✓', nested: { list: [1, 2, 3] } },
		];
		const result = await update({ templates: JSON.stringify(templates), banner: '{"title": "Spring sale", "image": "https://x.example/b.jpg"}' });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			message: 'Content updated successfully.',
			page: { url: '/home', templates, banner: { title: 'Spring sale', image: 'https://x.example/b.jpg' } },
		});
		expect(await readPage(tenant.client, '/home')).toMatchObject({ templates, banner: { title: 'Spring sale' } });
	});

	test('an empty banner keeps the current one; "null" and Clear Banner remove it', async () => {
		await tenant.client.put('/api/content', { url: '/home', templates: [], banner: { title: 'Keep me' } });

		expect((await update({ templates: '[{"type":"text","text":"one"}]', banner: '' })).error).toBeUndefined();
		expect(await readPage(tenant.client, '/home')).toMatchObject({ templates: [{ type: 'text', text: 'one' }], banner: { title: 'Keep me' } });

		expect((await update({ templates: '[]', banner: 'null' })).error).toBeUndefined();
		expect((await readPage(tenant.client, '/home'))?.banner).toBeNull();

		await tenant.client.put('/api/content', { url: '/home', templates: [], banner: { title: 'Again' } });
		expect((await update({ templates: '[]', clearBanner: true, banner: '{"title":"ignored"}' })).error).toBeUndefined();
		expect((await readPage(tenant.client, '/home'))?.banner).toBeNull();
	});

	test('templates may come from an expression as an array', async () => {
		const result = await update(
			{ url: '={{ $json.url }}', templates: '={{ $json.blocks }}', banner: '={{ $json.banner }}' },
			{ input: [{ json: { url: '/other', blocks: [{ type: 'quote', text: 'q' }], banner: { title: 'from item' } } }] },
		);
		expect(result.error).toBeUndefined();
		expect(await readPage(tenant.client, '/other')).toMatchObject({ templates: [{ type: 'quote', text: 'q' }], banner: { title: 'from item' } });
	});

	test.each([
		['templates not JSON', { templates: '[{"type": "text",]' }, /^Templates must be a JSON array of objects; it is not valid JSON/],
		['templates an object', { templates: '{"type": "text"}' }, /^Templates must be a JSON array of objects$/],
		['templates with a string entry', { templates: '[{"type": "text"}, "oops"]' }, /^Templates must be a JSON array of objects$/],
		['templates empty text', { templates: '  ' }, /^Templates must be a JSON array of objects; it is empty$/],
		['banner an array', { templates: '[]', banner: '[{"title": "x"}]' }, /^Banner must be a JSON object$/],
		['banner not JSON', { templates: '[]', banner: '{title: x}' }, /^Banner must be a JSON object; it is not valid JSON/],
	])('%s fails before anything is sent', async (_label, parameters, message) => {
		await tenant.client.put('/api/content', { url: '/home', templates: [{ type: 'text', text: 'stable' }], banner: { title: 'stable' } });
		const before = await readPage(tenant.client, '/home');

		const result = await update(parameters);
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(message);
		// Nothing reached the server: the page is exactly as it was (updated_at included).
		expect(await readPage(tenant.client, '/home')).toEqual(before);
	});

	test('the entry that is not an object is named', async () => {
		const result = await update({ templates: '[{"a": 1}, {"b": 2}, 3]' }, { continueOnFail: true });
		expect(result.items[0].json).toEqual({ error: 'Templates must be a JSON array of objects', details: 'Entry 2 is a number.' });
	});

	test('content of a page that does not exist: the server answers 404', async () => {
		const result = await update({ url: '/nowhere', templates: '[]' });
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toMatch(/not found/i);
	});
});

describe('Settings > Update', () => {
	test('sends only the given fields; the others keep their value', async () => {
		const tenant = await ctx.tenant('settings');
		const settings = async () => (await tenant.client.get('/api/settings')).data.settings;

		const first = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				googleCode: 'G-ABC123',
				noindex: true,
				contactFormWebhookUrl: 'https://hooks.example.com/contact',
				contactFormWebhookHeaders: { header: [{ name: 'X-Form-Secret', value: 's3cret' }, { name: 'X-Site', value: 'acme' }] },
			},
		});
		expect(first.error).toBeUndefined();
		expect(first.items[0].json).toMatchObject({ message: 'Settings saved successfully.' });
		expect(await settings()).toEqual({
			google_code: 'G-ABC123',
			noindex: 1,
			statistics_iframe: null,
			contact_form_webhook_url: 'https://hooks.example.com/contact',
			contact_form_webhook_headers: { 'X-Form-Secret': 's3cret', 'X-Site': 'acme' },
		});

		const second = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: { statisticsIframe: '<iframe src="https://stats.example.com"></iframe>', noindex: false },
		});
		expect(second.error).toBeUndefined();
		expect(await settings()).toEqual({
			google_code: 'G-ABC123',
			noindex: 0,
			statistics_iframe: '<iframe src="https://stats.example.com"></iframe>',
			contact_form_webhook_url: 'https://hooks.example.com/contact',
			contact_form_webhook_headers: { 'X-Form-Secret': 's3cret', 'X-Site': 'acme' },
		});

		// An empty webhook URL clears it.
		expect((await tenant.run({ resource: 'settings', operation: 'update', updateFields: { contactFormWebhookUrl: '' } })).error).toBeUndefined();
		expect((await settings()).contact_form_webhook_url).toBeNull();
	});

	test('no field chosen fails before sending; server-side problems come back with every field named', async () => {
		const tenant = await ctx.tenant('settings-bad');
		const empty = await tenant.run({ resource: 'settings', operation: 'update', updateFields: {} });
		expect(empty.error?.message).toBe('Add at least one setting to update');

		const invalid = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				googleCode: 'G-NEW',
				contactFormWebhookUrl: 'ftp://not-http.example.com',
				contactFormWebhookHeaders: { header: [{ name: 'Content-Type', value: 'text/plain' }] },
			},
		});
		expect(invalid.error?.httpCode).toBe('400');
		expect(invalid.error?.description).toContain('contact_form_webhook_url: must be an http(s) URL');
		expect(invalid.error?.description).toContain('contact_form_webhook_headers.Content-Type: is set by the server');
		// Rejected as a whole: the valid field was not saved either.
		expect((await tenant.client.get('/api/settings')).data.settings.google_code).toBeNull();
	});
});

describe('Sitemap > Get', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('sitemap');
		await seedPages(tenant.client, [
			{ url: '/b', name: 'B', locale: 'en' },
			{ url: '/a', name: 'A', locale: 'en' },
			{ url: '/de/c', name: 'C', locale: 'de' },
			{ url: '/draft', name: 'Draft', locale: 'en', draft: true },
			{ url: '/gone', name: 'Gone', locale: 'en' },
		]);
		await tenant.client.delete('/api/page', { data: { url: '/gone' } });
	});

	test('whole sitemap as one item: published pages only', async () => {
		const result = await tenant.run({ resource: 'sitemap', operation: 'get' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toEqual({
			generated_at: expect.any(String),
			pages: [
				{ url: '/a', name: 'A', locale: 'en', updated_at: expect.any(String) },
				{ url: '/b', name: 'B', locale: 'en', updated_at: expect.any(String) },
				{ url: '/de/c', name: 'C', locale: 'de', updated_at: expect.any(String) },
			],
		});
	});

	test('split into one item per page, and filtered by locale', async () => {
		const split = await tenant.run({ resource: 'sitemap', operation: 'get', splitIntoItems: true });
		expect(split.items.map((item) => [item.json.url, item.pairedItem])).toEqual([
			['/a', { item: 0 }],
			['/b', { item: 0 }],
			['/de/c', { item: 0 }],
		]);

		const german = await tenant.run({ resource: 'sitemap', operation: 'get', locale: 'de', splitIntoItems: true });
		expect(jsonOf(german.items)).toEqual([{ url: '/de/c', name: 'C', locale: 'de', updated_at: expect.any(String) }]);

		const none = await tenant.run({ resource: 'sitemap', operation: 'get', locale: 'fr', splitIntoItems: true });
		expect(none.error).toBeUndefined();
		expect(none.items).toEqual([]);
	});
});

describe('Notification > Send', () => {
	test('sends a notification; the same id again replaces it', async () => {
		const tenant = await ctx.tenant('notify');
		const send = (message: string, status: string) =>
			tenant.run({ resource: 'notification', operation: 'send', notificationId: 'import-42', message, status });

		const started = await send('Import started', 'info');
		expect(started.error).toBeUndefined();
		expect(started.items[0].json).toMatchObject({
			message: 'Notification saved.',
			notification: { id: 'import-42', message: 'Import started', status: 'info' },
		});

		expect((await send('Import 50% done', 'warning')).error).toBeUndefined();
		expect((await send('Import finished', 'success')).error).toBeUndefined();
		const other = await tenant.run({ resource: 'notification', operation: 'send', notificationId: 'other', message: 'Failed', status: 'error' });
		expect(other.error).toBeUndefined();

		const list = (await tenant.client.get('/api/notifications')).data.data as Array<Record<string, unknown>>;
		expect(list.map(({ id, message, status }) => ({ id, message, status })).sort((a, b) => String(a.id).localeCompare(String(b.id)))).toEqual([
			{ id: 'import-42', message: 'Import finished', status: 'success' },
			{ id: 'other', message: 'Failed', status: 'error' },
		]);
	});

	test('a status outside the list is refused by the server with the field named', async () => {
		const tenant = await ctx.tenant('notify-bad');
		const result = await tenant.run(
			{ resource: 'notification', operation: 'send', notificationId: 'n', message: 'm', status: '={{ $json.status }}' },
			{ input: [{ json: { status: 'panic' } }] },
		);
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.description).toMatch(/^status: /m);
		expect((await tenant.client.get('/api/notifications')).data.data).toEqual([]);
	});
});

describe('Variable', () => {
	test('Set creates and replaces, Get Many lists one item per variable, Delete removes', async () => {
		const tenant = await ctx.tenant('variables');
		const set = (key: string, value: string) => tenant.run({ resource: 'variable', operation: 'set', key, value });

		expect((await set('colour', 'blue')).items[0].json).toEqual({ message: 'Variable saved.', variable: { key: 'colour', value: 'blue' } });
		expect((await set('size', 'L')).error).toBeUndefined();
		expect((await set('colour', 'green')).error).toBeUndefined();

		const all = await tenant.run({ resource: 'variable', operation: 'getAll' });
		expect(jsonOf(all.items).sort((a, b) => String(a.key).localeCompare(String(b.key)))).toEqual([
			{ key: 'colour', value: 'green' },
			{ key: 'size', value: 'L' },
		]);

		const deleted = await tenant.run({ resource: 'variable', operation: 'delete', key: 'colour' });
		expect(deleted.items[0].json).toEqual({ message: 'Variable deleted.', key: 'colour', deleted: true });
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([{ key: 'size', value: 'L' }]);

		const missing = await tenant.run({ resource: 'variable', operation: 'delete', key: 'colour' });
		expect(missing.error?.httpCode).toBe('404');
	});

	test('an empty list gives no items', async () => {
		const tenant = await ctx.tenant('variables-empty');
		const all = await tenant.run({ resource: 'variable', operation: 'getAll' });
		expect(all.error).toBeUndefined();
		expect(all.items).toEqual([]);
	});

	test('on a server without variables every call fails with 403 feature_disabled', async () => {
		const site = await startTestSite({ enableVariables: false });
		try {
			const tenant = await site.createTenant('no-vars');
			const credentials = ctx.runner.credentials.add('siteTenantApi', { baseUrl: site.url, token: tenant.token });
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				parameters: { resource: 'variable', operation: 'set', key: 'k', value: 'v' },
			});
			expect(result.error?.httpCode).toBe('403');
			expect(result.error?.message).toMatch(/Variables are not enabled/);
		} finally {
			await site.close();
		}
	});
});

describe('Custom API Call', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('custom');
		await seedPages(tenant.client, [{ url: '/x', locale: 'en' }, { url: '/y', locale: 'de' }]);
	});
	const call = (parameters: Record<string, unknown>, extra = {}) =>
		tenant.run({ resource: 'customApiCall', operation: 'call', ...parameters }, extra);

	test('GET with query parameters returns the response body', async () => {
		const result = await call({ method: 'GET', path: '/api/pages', queryParameters: { parameter: [{ name: 'locale', value: 'de' }] } });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ data: [{ url: '/y' }], meta: { total: 1 } });
	});

	test('POST, PUT and DELETE with a JSON body, authenticated by the node credential', async () => {
		const created = await call({ method: 'POST', path: '/api/page', body: '{"name": "Z", "url": "/z", "locale": "en"}' });
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ page: { url: '/z' } });

		const put = await call({ method: 'PUT', path: 'api/content', body: '={{ JSON.stringify({ url: "/z", templates: [{ type: "t" }] }) }}' });
		expect(put.error).toBeUndefined();
		expect((await readPage(tenant.client, '/z'))?.templates).toEqual([{ type: 't' }]);

		const deleted = await call({ method: 'DELETE', path: '/api/page', body: '{"url": "/z"}' });
		expect(deleted.error).toBeUndefined();
		expect(await readPage(tenant.client, '/z')).toBeUndefined();
	});

	test('an endpoint the server does not have (e.g. a chatbot) answers 404 as an error', async () => {
		const result = await call({ method: 'POST', path: '/api/chatbot', body: '{"message": "hi"}' }, { continueOnFail: true });
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
			['a protocol-relative URL', () => `${trapUrl.replace('http:', '')}/api/pages`, /not a full URL/],
			['a climb out of /api/', () => '/api/../api/tenant', /must not contain "\." or "\.\." segments/],
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

		test('the trap itself is reachable (so the check above could fail)', async () => {
			const before = hits;
			await fetch(`${trapUrl}/api/pages`);
			expect(hits).toBe(before + 1);
		});
	});

	test('a JSON body that is not JSON fails before sending', async () => {
		const result = await call({ method: 'POST', path: '/api/page', body: '{"name": "Q", "url": "/q",' });
		expect(result.error?.message).toMatch(/^JSON Body must be a JSON object; it is not valid JSON/);
		expect(await readPage(tenant.client, '/q')).toBeUndefined();
	});
});
