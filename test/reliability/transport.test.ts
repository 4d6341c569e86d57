/**
 * The shared transport, seen on the wire through a proxy in front of the reference server:
 * Idempotency-Key on every write and stable across retries, retries on a lost answer, a timeout,
 * 429 with Retry-After and 5xx, never on other 4xx.
 */
import type { INodeCredentials, INodeParameters } from 'n8n-workflow';

import { MAX_RETRY_AFTER_MS, RETRY_BASE_DELAY_MS } from '../../nodes/shared/retry';
import type { RunNodeOptions } from '../harness/workflow-runner';
import { startDelayProxy, type DelayProxy } from '../harness/delay-proxy';
import { byUrl } from '../harness/locators';
import {
	readPage,
	seedPages,
	storedPageRows,
	useNodeTestContext,
	type TenantContext,
} from '../harness/nodes';

const ctx = useNodeTestContext();

let tenant: TenantContext;
let proxy: DelayProxy;
beforeAll(async () => {
	tenant = await ctx.tenant('wire');
	proxy = await startDelayProxy(() => ctx.site.url);
});
afterAll(async () => {
	await proxy?.close();
});

/** A tenant credential whose base URL goes through the proxy, with directives for it. */
const through = (directives = ''): INodeCredentials =>
	ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: directives ? `${proxy.url}/_/${directives}` : proxy.url,
		token: tenant.token,
	});

/** Runs the Tenant node and returns what went over the wire for it. */
async function onTheWire(
	credentials: INodeCredentials,
	parameters: INodeParameters,
	extra: Partial<RunNodeOptions> = {},
) {
	const first = proxy.log.length;
	const startedAt = Date.now();
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials,
		parameters,
		...extra,
	});
	return { result, requests: proxy.log.slice(first), elapsed: Date.now() - startedAt };
}

test('every POST, PUT and DELETE carries its own Idempotency-Key; GET carries none', async () => {
	await seedPages(tenant.client, [{ url: '/idem-del' }]);
	const credentials = through();
	const creates = await onTheWire(
		credentials,
		{ resource: 'page', operation: 'create', name: 'n', url: '={{ $json.url }}', locale: 'en' },
		{
			input: [
				{ json: { url: '/idem-1' } },
				{ json: { url: '/idem-2' } },
				{ json: { url: '/idem-3' } },
			],
		},
	);
	expect(creates.result.error).toBeUndefined();
	const keys = creates.requests.map((request) => request.idempotencyKey);
	expect(creates.requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
	expect(new Set(keys).size).toBe(3);
	for (const key of keys) expect(key).toMatch(/^[0-9a-f-]{36}$/);

	const put = await onTheWire(credentials, {
		resource: 'variable',
		operation: 'set',
		key: 'k',
		value: 'v',
	});
	expect(put.requests.map((request) => [request.method, typeof request.idempotencyKey])).toEqual([
		['PUT', 'string'],
	]);

	const deleted = await onTheWire(credentials, {
		resource: 'page',
		operation: 'delete',
		url: byUrl('/idem-del'),
	});
	expect(deleted.result.error).toBeUndefined();
	expect(
		deleted.requests.map((request) => [request.method, typeof request.idempotencyKey]),
	).toEqual([
		['GET', 'undefined'],
		['DELETE', 'string'],
	]);
});

test('an answer lost after the work was done: the retry with the same key replays it, nothing doubles', async () => {
	const { result, requests } = await onTheWire(through('dropOnce=lost-create'), {
		resource: 'page',
		operation: 'create',
		name: 'Once',
		url: '/lost-answer',
		locale: 'en',
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({ url: '/lost-answer', name: 'Once' });
	expect(
		requests.map((request) => [request.method, request.status, request.dropped ?? false]),
	).toEqual([
		['POST', 201, true],
		['POST', 201, false],
	]);
	expect(requests[1].idempotencyKey).toBe(requests[0].idempotencyKey);
	expect(storedPageRows(ctx.site, 'wire').filter((row) => row.url === '/lost-answer')).toHaveLength(
		1,
	);
});

test('a page delete whose answer is lost is retried with the same key and still succeeds (no "not found")', async () => {
	await seedPages(tenant.client, [{ url: '/lost-delete' }]);
	const { result, requests } = await onTheWire(through('dropOnce=lost-delete:DELETE'), {
		resource: 'page',
		operation: 'delete',
		url: byUrl('/lost-delete'),
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({ url: '/lost-delete', deleted: true });
	expect(
		requests.map((request) => [request.method, request.status, request.dropped ?? false]),
	).toEqual([
		['GET', 200, false],
		['DELETE', 200, true],
		['DELETE', 200, false],
	]);
	expect(requests[2].idempotencyKey).toBe(requests[1].idempotencyKey);
	expect(storedPageRows(ctx.site, 'wire').filter((row) => row.url === '/lost-delete')).toEqual([
		{ url: '/lost-delete', deleted_at: expect.any(String) },
	]);
});

test('a request that exceeds Options > Timeout is retried with the same key and succeeds once', async () => {
	const { result, requests } = await onTheWire(through('delayOnce=slow-create:2000'), {
		resource: 'page',
		operation: 'create',
		name: 'Slow',
		url: '/slow',
		locale: 'en',
		options: { timeout: 600 },
	});
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({ url: '/slow', name: 'Slow' });
	// The held attempt timed out and was sent again (once, unless a busy machine slowed the retry too).
	expect(requests.length).toBeGreaterThanOrEqual(2);
	expect(new Set(requests.map((request) => request.idempotencyKey)).size).toBe(1);
	// The held request reaches the server later; it must not create a second page either.
	const rows = () => storedPageRows(ctx.site, 'wire').filter((row) => row.url === '/slow');
	expect(rows()).toHaveLength(1);
	await waitFor(() => requests[0].finishedAt !== undefined);
	expect(requests[0].status).toBe(201);
	expect(rows()).toHaveLength(1);
});

test('429 with Retry-After waits that long, then retries', async () => {
	const { result, requests } = await onTheWire(through('failOnce=busy:429:1'), {
		resource: 'notification',
		operation: 'send',
		notificationId: 'after-429',
		message: 'm',
		status: 'info',
	});
	expect(result.error).toBeUndefined();
	expect(requests.map((request) => request.status)).toEqual([429, 200]);
	expect(requests[1].arrivedAt - requests[0].arrivedAt).toBeGreaterThanOrEqual(950);
	expect(requests[1].idempotencyKey).toBe(requests[0].idempotencyKey);
});

test('503 without Retry-After is retried after a short backoff', async () => {
	const { result, requests } = await onTheWire(through('failOnce=down:503'), {
		resource: 'sitemap',
		operation: 'get',
	});
	expect(result.error).toBeUndefined();
	expect(requests.map((request) => request.status)).toEqual([503, 200]);
	// The first backoff is under RETRY_BASE_DELAY_MS (250 ms); a Retry-After default or the backoff's
	// 10 s cap would be far longer. 20x the first backoff leaves a loaded machine room.
	expect(requests[1].arrivedAt - requests[0].arrivedAt).toBeLessThan(20 * RETRY_BASE_DELAY_MS);
});

test('a Retry-After longer than the limit fails the item at once with the server message', async () => {
	const { result, requests, elapsed } = await onTheWire(through('failOnce=much-later:429:3600'), {
		resource: 'sitemap',
		operation: 'get',
	});
	expect(result.error?.httpCode).toBe('429');
	expect(result.error?.message).toBe('Injected 429 by the test proxy.');
	expect(requests).toHaveLength(1);
	// Not after waiting: a wait would last the hour asked for, or the MAX_RETRY_AFTER_MS (60 s) limit.
	// A third of that limit only stops a run that waited; the answer takes well under a second.
	expect(elapsed).toBeLessThan(MAX_RETRY_AFTER_MS / 3);
});

test.each([400, 403, 404, 409, 422])('%i is not retried', async (status) => {
	const { result, requests } = await onTheWire(
		through(`failOnce=client-${status}:${status}`),
		{ resource: 'variable', operation: 'set', key: `k${status}`, value: 'v' },
		{ continueOnFail: true },
	);
	expect(requests).toHaveLength(1);
	expect(result.items[0].json).toEqual({
		error: `Injected ${status} by the test proxy.`,
		httpCode: String(status),
	});
	expect(
		(await tenant.client.get('/api/variables')).data.data.map((v: { key: string }) => v.key),
	).not.toContain(`k${status}`);
});

test('no answer at all: retried with backoff, then a clear network error', async () => {
	const credentials = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: 'http://127.0.0.1:1',
		token: tenant.token,
	});
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials,
		parameters: { resource: 'sitemap', operation: 'get' },
	});
	expect(result.error?.message).toMatch(
		/^The server is not listening at http:\/\/127\.0\.0\.1:1: the connection was refused/,
	);
	expect(result.error?.description).toBe(
		'No answer from the service after 6 attempts (ECONNREFUSED).\n\nSitemap > Get failed for item 0.',
	);
});

test('a base URL with a trailing slash joins cleanly', async () => {
	const trailing = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: `${proxy.url}/`,
		token: tenant.token,
	});
	const { result, requests } = await onTheWire(trailing, {
		resource: 'page',
		operation: 'get',
		url: byUrl('/idem-1'),
	});
	expect(result.error).toBeUndefined();
	expect(requests[0].path).toMatch(/^\/api\/pages\?/);
	expect(await readPage(tenant.client, '/idem-1')).toBeDefined();
});

async function waitFor(check: () => boolean, timeoutMs = 5000) {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
