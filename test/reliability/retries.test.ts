/**
 * Retries against a server that fails on purpose: a share of API requests is answered 503 before any
 * work (--fault-rate), another share does the work, commits and then drops the connection unanswered
 * (--fault-drop-rate). Every item must still succeed, and the Idempotency-Key (the same for every
 * retry of one item) must keep a retried request from doing its work twice.
 *
 * Sizes are kept moderate: with these rates a request fails all 6 attempts (the transport's limit)
 * with probability 0.235^6 ≈ 1.7e-4, so the ~45 requests of this file fail spuriously in under 1% of
 * runs.
 */
import type { INodeCredentials } from 'n8n-workflow';

import { storedPageRows, useNodeTestContext } from '../harness/nodes';
import type { NodeRunResult } from '../harness/workflow-runner';

const ctx = useNodeTestContext({ faultRate: 0.15, faultDropRate: 0.1 });

const TENANT = 'faulty';
let tenantCredential: INodeCredentials;

/** The page as stored, read straight from the database (no faults on this path). */
const storedPage = (url: string) => {
	const tenant = ctx.site.server.app.site.store.tenants.findById(TENANT)!;
	return ctx.site.server.app.site.store.pages.findLive(tenant.pk, url);
};

/** What the server did, seen from its HTTP server: answered statuses and connections dropped unanswered. */
const seen = { unavailable: 0, dropped: 0, total: 0 };
/**
 * The mints (`POST /api/tenant/token`) among them: answered with a token, or dropped after the token
 * was issued (the answer lost: the client mints again). 503s issue nothing.
 */
const mints = { answered: 0, dropped: 0 };

beforeAll(async () => {
	ctx.site.server.app.server.on('request', (request, response) => {
		if (!request.url?.startsWith('/api/')) return;
		seen.total++;
		response.on('finish', () => {
			if (response.statusCode === 503) seen.unavailable++;
		});
		// 'finish' means the answer was handed to the socket; a dropped connection closes without it.
		let finished = false;
		response.on('finish', () => (finished = true));
		response.on('close', () => {
			if (!finished) seen.dropped++;
		});
		if (request.method === 'POST' && request.url === '/api/tenant/token') {
			response.on('finish', () => {
				if (response.statusCode === 200) mints.answered++;
			});
			response.on('close', () => {
				if (!finished) mints.dropped++;
			});
		}
	});
	// Even the setup goes through the nodes, under faults.
	const created = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: TENANT });
	expect(created.error).toBeUndefined();
	const issued = await ctx.adminNode({ resource: 'token', operation: 'issue', id: TENANT });
	expect(issued.error).toBeUndefined();
	tenantCredential = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: ctx.site.url,
		token: issued.items[0].json.token as string,
	});
});

test('20 page creates in batches of 4 all succeed, leaving exactly one page per item', async () => {
	const count = 20;
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials: tenantCredential,
		input: Array.from({ length: count }, (_, i) => ({ json: { i } })),
		parameters: {
			resource: 'page',
			operation: 'create',
			name: '={{ "Page " + $json.i }}',
			url: '={{ "/retry/" + $json.i }}',
			locale: 'en',
			options: { batching: { batch: { batchSize: 4 } } },
		},
	});
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => [item.json.url, item.pairedItem])).toEqual(
		Array.from({ length: count }, (_, i) => [`/retry/${i}`, { item: i }]),
	);
	const rows = storedPageRows(ctx.site, TENANT).filter((row) => row.url.startsWith('/retry/'));
	expect(rows.map((row) => row.url).sort()).toEqual(
		Array.from({ length: count }, (_, i) => `/retry/${i}`).sort(),
	);
	expect(rows.every((row) => row.deleted_at === null)).toBe(true);
});

test('10 content updates in batches of 4 all succeed and each page holds its own content', async () => {
	const count = 10;
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials: tenantCredential,
		input: Array.from({ length: count }, (_, i) => ({ json: { i } })),
		parameters: {
			resource: 'content',
			operation: 'update',
			url: '={{ "/retry/" + $json.i }}',
			templates: '={{ JSON.stringify([{ type: "text", text: "content " + $json.i }]) }}',
			banner: '={{ JSON.stringify({ title: "banner " + $json.i }) }}',
			options: { batching: { batch: { batchSize: 4 } } },
		},
	});
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => item.json.url)).toEqual(
		Array.from({ length: count }, (_, i) => `/retry/${i}`),
	);
	for (let i = 0; i < count; i++) {
		expect(storedPage(`/retry/${i}`)).toMatchObject({
			templates: [{ type: 'text', text: `content ${i}` }],
			banner: { title: `banner ${i}` },
		});
	}
});

test('with the managed credential (minting under faults too): creates, then deletes, each exactly once', async () => {
	const managed = ctx.managedCredential(TENANT);
	/** Each run gets exactly one token (the one answered); a mint whose answer was lost costs one more. */
	const expectOneTokenPerRun = async (run: () => Promise<NodeRunResult>) => {
		const issued = ctx.site.tokensIssued(TENANT);
		const before = { ...mints };
		const result = await run();
		expect(mints.answered - before.answered).toBe(1);
		expect(ctx.site.tokensIssued(TENANT) - issued).toBe(1 + (mints.dropped - before.dropped));
		return result;
	};
	const urls = Array.from({ length: 6 }, (_, i) => `/managed/${i}`);
	const created = await expectOneTokenPerRun(() =>
		ctx.runner.runNode({
			type: 'siteTenant',
			credentials: managed,
			input: urls.map((url) => ({ json: { url } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: 'Managed',
				url: '={{ $json.url }}',
				locale: 'en',
			},
		}),
	);
	expect(created.error).toBeUndefined();
	expect(created.items).toHaveLength(urls.length);

	// Delete the first three: each is read, then deleted; a dropped DELETE retried must not turn into "not found".
	const deleted = await expectOneTokenPerRun(() =>
		ctx.runner.runNode({
			type: 'siteTenant',
			credentials: managed,
			input: urls.slice(0, 3).map((url) => ({ json: { url } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'delete',
				url: '={{ $json.url }}',
				options: { batching: { batch: { batchSize: 3 } } },
			},
		}),
	);
	expect(deleted.error).toBeUndefined();
	expect(deleted.items.map((item) => [item.json.deleted, item.json.url])).toEqual(
		urls.slice(0, 3).map((url) => [true, url]),
	);

	// One row per page (none created twice), in URL order: the items run concurrently, so the rows'
	// order of creation is not the input's.
	const rows = storedPageRows(ctx.site, TENANT)
		.filter((row) => row.url.startsWith('/managed/'))
		.sort((x, y) => x.url.localeCompare(y.url));
	expect(rows.map((row) => [row.url, row.deleted_at === null])).toEqual(
		urls.map((url, i) => [url, i >= 3]),
	);
});

test('the faults really happened (so the tests above could have failed)', () => {
	expect(seen.total).toBeGreaterThan(45);
	// Both kinds together, so the check itself is not flaky (a run without any drop is possible, if
	// rare); transport.test.ts drops a committed request on purpose to cover that case for sure.
	expect(seen.unavailable + seen.dropped).toBeGreaterThan(1);
});
