/**
 * Behaviour every operation shares: server errors shown with their fields, Continue On Fail,
 * batching that keeps order and pairing, and no token in any output or error.
 */
import { startDelayProxy, type DelayProxy } from '../harness/delay-proxy';
import {
	delayedPageLookup,
	expectNoSecrets,
	listPages,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../harness/nodes';
import { startMintCapture, type MintCapture } from '../harness/mint-capture';

const ctx = useNodeTestContext();

let tenant: TenantContext;
let proxy: DelayProxy;
let capture: MintCapture;
beforeAll(async () => {
	tenant = await ctx.tenant('shared');
	proxy = await startDelayProxy(() => ctx.site.url);
	capture = await startMintCapture(() => ctx.site.url);
});
afterAll(async () => {
	await proxy?.close();
	await capture?.close();
});

describe('server errors', () => {
	test('a validation error shows the server message, every field problem and the status', async () => {
		const body = {
			google_code: 'G-1',
			contact_form_webhook_url: 'not a url',
			contact_form_webhook_headers: { Host: 'evil.example', 'X-Ok': 'fine' },
		};
		// What the server itself answers to this body.
		const direct = await tenant.client.post('/api/settings', body);
		expect(direct.status).toBe(400);
		expect(direct.data.details.length).toBe(2);

		const result = await tenant.run({
			resource: 'settings',
			operation: 'update',
			updateFields: {
				googleCode: 'G-1',
				contactFormWebhookUrl: 'not a url',
				contactFormWebhookHeaders: {
					header: [
						{ name: 'Host', value: 'evil.example' },
						{ name: 'X-Ok', value: 'fine' },
					],
				},
			},
		});
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toBe(direct.data.message);
		expect(result.error?.description).toBe(
			direct.data.details
				.map((entry: { field: string; problem: string }) => `${entry.field}: ${entry.problem}`)
				.join('\n') + '\n\nSetting > Update failed for item 0.',
		);
		expect(result.error?.httpCode).toBe('400');
		expect((result.error as unknown as { name: string }).name).toBe('NodeApiError');
	});

	test('with Continue On Fail the error item carries message, details and status', async () => {
		const result = await tenant.run(
			{
				resource: 'page',
				operation: 'create',
				name: '={{ $json.name }}',
				url: 'missing-slash',
				locale: 'en',
			},
			{ continueOnFail: true, input: [{ json: { name: 'x' } }] },
		);
		expect(result.items).toEqual([
			{
				json: {
					error: expect.stringMatching(/\S/),
					details: [{ field: 'url', problem: expect.any(String) }],
					httpCode: '400',
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('without Continue On Fail the first failing item stops the node, naming the item', async () => {
		await seedPages(tenant.client, [{ url: '/exists' }]);
		const result = await tenant.run(
			{
				resource: 'page',
				operation: 'create',
				name: 'n',
				url: '={{ $json.url }}',
				locale: 'en',
				options: { concurrency: 1 },
			},
			{
				input: [
					{ json: { url: '/fresh-1' } },
					{ json: { url: '/exists' } },
					{ json: { url: '/fresh-2' } },
				],
			},
		);
		// Without Continue On Fail the first failure stops the node: no output at all.
		expect(result.items).toHaveLength(0);
		expect(result.error?.httpCode).toBe('409');
		expect(result.error?.context?.itemIndex).toBe(1);
		// Items run one after the other (Concurrency 1): the one before ran, the one after did not.
		const urls = (await listPages(tenant.client)).map((page) => page.url);
		expect(urls).toContain('/fresh-1');
		expect(urls).not.toContain('/fresh-2');
	});
});

describe('Continue On Fail', () => {
	test('failing items get an error output paired to their input; the others succeed', async () => {
		const local = await ctx.tenant('continue');
		await seedPages(local.client, [{ url: '/taken' }]);
		const urls = ['/c0', '/taken', '/c2', 'bad url', '/c4', ''];
		const result = await local.run(
			{
				resource: 'page',
				operation: 'create',
				name: 'Page',
				url: '={{ $json.url }}',
				locale: 'en',
			},
			{ continueOnFail: true, input: urls.map((url) => ({ json: { url } })) },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [
				item.pairedItem,
				item.json.error === undefined ? item.json.url : (item.json.httpCode ?? item.json.error),
			]),
		).toEqual([
			[{ item: 0 }, '/c0'],
			[{ item: 1 }, '409'],
			[{ item: 2 }, '/c2'],
			[{ item: 3 }, '400'],
			[{ item: 4 }, '/c4'],
			[{ item: 5 }, 'Page URL is required'],
		]);
		// The items run concurrently: compare without the order of creation.
		expect((await listPages(local.client)).map((page) => page.url).sort()).toEqual([
			'/c0',
			'/c2',
			'/c4',
			'/taken',
		]);
	});

	test('with batching too, every error stays with its own item', async () => {
		const local = await ctx.tenant('continue-batched');
		const result = await local.run(
			{
				resource: 'content',
				operation: 'update',
				url: '={{ $json.url }}',
				templates: '={{ $json.templates }}',
				options: { batching: { batch: { batchSize: 3 } } },
			},
			{
				continueOnFail: true,
				input: [
					{ json: { url: '/nope-0', templates: '[{"type":"text"}]' } },
					{ json: { url: '/nope-1', templates: '{}' } },
					{ json: { url: '/nope-2', templates: '[{"type":"text"}]' } },
					{ json: { url: '/nope-3', templates: 'x' } },
				],
			},
		);
		expect(
			result.items.map((item) => [item.pairedItem, item.json.httpCode ?? item.json.error]),
		).toEqual([
			[{ item: 0 }, '404'],
			[{ item: 1 }, 'Templates must be a JSON array of objects'],
			[{ item: 2 }, '404'],
			[
				{ item: 3 },
				expect.stringMatching(/^Templates must be a JSON array of objects; it is not valid JSON/),
			],
		]);
	});
});

describe('Batching', () => {
	const viaProxy = () =>
		ctx.runner.credentials.add('siteTenantApi', { baseUrl: proxy.url, token: tenant.token });

	test('batches of 4 over 10 items run concurrently, one batch after the other, and keep order and pairing', async () => {
		await seedPages(
			tenant.client,
			Array.from({ length: 10 }, (_, i) => ({ url: `/b${i}` })),
		);
		const credentials = viaProxy();
		const first = proxy.log.length;
		// Within each batch the first item is the slowest: answers come back in reverse order. The
		// proxy holds a batch's requests until all four are in flight (the last batch, two, until its
		// gathering's quiet time), however slowly the machine sends them.
		const input = Array.from({ length: 10 }, (_, i) => ({
			json: { i, delay: (4 - (i % 4)) * 60, gather: 'batch:4' },
		}));
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input,
			parameters: {
				...delayedPageLookup('/b'),
				options: { batching: { batch: { batchSize: 4 } } },
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => (item.json.data as Array<{ url: string }>)[0].url)).toEqual(
			input.map(({ json }) => `/b${json.i}`),
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual(input.map((_, i) => ({ item: i })));

		const requests = proxy.log.slice(first);
		expect(requests).toHaveLength(10);
		const batches = [requests.slice(0, 4), requests.slice(4, 8), requests.slice(8)];
		for (const batch of batches) {
			// Concurrent: every request of a batch arrived before any of them was answered.
			const lastArrival = Math.max(...batch.map((entry) => entry.arrivedAt));
			expect(lastArrival).toBeLessThanOrEqual(Math.min(...batch.map((entry) => entry.finishedAt!)));
		}
		for (let b = 1; b < batches.length; b++) {
			// Sequential: a batch starts only once the one before is done.
			const previousDone = Math.max(...batches[b - 1].map((entry) => entry.finishedAt!));
			expect(Math.min(...batches[b].map((entry) => entry.arrivedAt))).toBeGreaterThanOrEqual(
				previousDone,
			);
		}
	});

	test('the batch interval pauses between batches', async () => {
		const credentials = viaProxy();
		const first = proxy.log.length;
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: Array.from({ length: 6 }, (_, i) => ({ json: { i } })),
			parameters: {
				resource: 'notification',
				operation: 'send',
				notificationId: '={{ "batch-" + $json.i }}',
				message: 'm',
				status: 'info',
				options: { batching: { batch: { batchSize: 2, batchInterval: 150 } } },
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id)).toEqual(
			Array.from({ length: 6 }, (_, i) => `batch-${i}`),
		);
		const requests = proxy.log.slice(first);
		for (const b of [1, 2]) {
			const previousDone = Math.max(
				...requests.slice((b - 1) * 2, b * 2).map((entry) => entry.finishedAt!),
			);
			const start = Math.min(...requests.slice(b * 2, b * 2 + 2).map((entry) => entry.arrivedAt));
			expect(start - previousDone).toBeGreaterThanOrEqual(140);
		}
	});

	test('creating 10 pages in batches of 4 keeps order and pairing and creates each once', async () => {
		const local = await ctx.tenant('batch-create');
		const result = await local.run(
			{
				resource: 'page',
				operation: 'create',
				name: '={{ "Page " + $json.n }}',
				url: '={{ "/n" + $json.n }}',
				locale: 'en',
				options: { batching: { batch: { batchSize: 4 } } },
			},
			{ input: Array.from({ length: 10 }, (_, n) => ({ json: { n } })) },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.url, item.pairedItem])).toEqual(
			Array.from({ length: 10 }, (_, n) => [`/n${n}`, { item: n }]),
		);
		expect((await listPages(local.client)).map((page) => page.url).sort()).toEqual(
			Array.from({ length: 10 }, (_, n) => `/n${n}`).sort(),
		);
	});
});

describe('no token anywhere', () => {
	test('outputs, errors, error items and the run data never contain a token', async () => {
		const local = await ctx.tenant('secrets');
		const bogus = 'stt_bogus-token-that-must-not-leak-0123456789';
		const badCredential = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: bogus,
		});
		const adminAsTenant = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: ctx.site.adminToken,
		});
		// The managed credential mints through a loopback forwarder that records the tokens it hands
		// out: a node run keeps its token to itself (nothing is stored in the credential).
		const managed = ctx.managedCredential('secrets', { adminBaseUrl: capture.url });
		const managedBadAdmin = ctx.managedCredential('secrets', {
			adminToken: `${ctx.site.adminToken}-wrong`,
		});
		const runs = [
			await local.run({
				resource: 'page',
				operation: 'create',
				name: 'n',
				url: '/ok',
				locale: 'en',
			}),
			await local.run({
				resource: 'page',
				operation: 'create',
				name: 'n',
				url: '/ok',
				locale: 'en',
			}),
			await local.run(
				{ resource: 'page', operation: 'get', url: '/missing' },
				{ continueOnFail: true },
			),
			await local.run({ resource: 'content', operation: 'update', url: '/ok', templates: '{' }),
			await local.run({
				resource: 'customApiCall',
				operation: 'call',
				method: 'GET',
				path: '/api/nothing',
			}),
			await local.run({
				resource: 'customApiCall',
				operation: 'call',
				method: 'GET',
				path: '/api/pages',
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: badCredential,
				parameters: { resource: 'variable', operation: 'getAll' },
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: badCredential,
				parameters: { resource: 'page', operation: 'delete', url: '/ok' },
				continueOnFail: true,
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: adminAsTenant,
				parameters: { resource: 'sitemap', operation: 'get' },
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: managed,
				parameters: {
					authentication: 'managedTenant',
					resource: 'page',
					operation: 'getAll',
					returnAll: true,
				},
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: managedBadAdmin,
				parameters: {
					authentication: 'managedTenant',
					resource: 'page',
					operation: 'getAll',
					returnAll: true,
				},
			}),
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials: managedBadAdmin,
				parameters: {
					authentication: 'managedTenant',
					resource: 'page',
					operation: 'getAll',
					returnAll: true,
				},
				continueOnFail: true,
			}),
			await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'secrets' }),
			await ctx.adminNode({
				resource: 'tenant',
				operation: 'update',
				oldId: 'secrets',
				id: 'secrets',
				fqdn: 'no spaces allowed',
			}),
		];
		// Each case failed or succeeded as intended (so the scan covers real errors).
		expect(
			runs.map((run) =>
				run.error ? `error ${run.error.httpCode ?? ''}`.trim() : `ok ${run.items.length}`,
			),
		).toEqual([
			'ok 1',
			'error 409',
			'ok 1',
			'error',
			'error 404',
			'ok 1',
			'error 401',
			'ok 1',
			'error 403',
			'ok 1',
			// The token mint refused the admin token: the Admin API's status, as any answer's.
			'error 401',
			'ok 1',
			'error 409',
			'error 400',
		]);
		// The one managed run that could mint did, once.
		expect(capture.minted).toEqual([{ tenantId: 'secrets', token: expect.any(String) }]);
		expectNoSecrets(
			runs.map((run) => ({ run: run.run, error: run.error, items: run.items })),
			[local.token, tenant.token, bogus, ctx.site.adminToken, ...capture.tokens()],
		);
	});
});
