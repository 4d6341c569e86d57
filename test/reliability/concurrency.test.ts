/**
 * Options > Concurrency: from node version 2 items run through a sliding window of requests in flight
 * (a new one starts as each answer arrives, no barrier per batch); version 1 keeps sending one item
 * at a time. Order, pairing, Continue On Fail and "the first failure in input order stops the node"
 * hold whatever finishes first. The managed credential mints once for the whole window.
 */
import type { INodeParameters } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../nodes/shared/window';
import { startDelayProxy, type DelayProxy, type ProxiedRequest } from '../harness/delay-proxy';
import {
	credentialId,
	delayedPageLookup,
	listPages,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../harness/nodes';
import { managedCredentialData } from '../harness/reference-server';

const ctx = useNodeTestContext();

let tenant: TenantContext;
let proxy: DelayProxy;
beforeAll(async () => {
	tenant = await ctx.tenant('window');
	proxy = await startDelayProxy(() => ctx.site.url);
	await seedPages(
		tenant.client,
		Array.from({ length: MAX_CONCURRENCY + 12 }, (_, i) => ({ url: `/w${i}` })),
	);
});
afterAll(async () => {
	await proxy?.close();
});

/** The most requests the proxy had open at the same moment. */
function maxInFlight(requests: ProxiedRequest[]): number {
	const events = requests.flatMap((entry) => [
		{ at: entry.arrivedAt, change: 1 },
		{ at: entry.finishedAt!, change: -1 },
	]);
	// At the same instant a finish comes before an arrival: the window refills only after an answer.
	events.sort((a, b) => a.at - b.at || a.change - b.change);
	let open = 0;
	let max = 0;
	for (const event of events) {
		open += event.change;
		max = Math.max(max, open);
	}
	return max;
}

/** Page > Get for each item through the proxy, each held back `delay` ms; returns the proxy's log. */
async function getPages(delays: number[], typeVersion: number, options: INodeParameters = {}) {
	const credentials = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: proxy.url,
		token: tenant.token,
	});
	const first = proxy.log.length;
	const input = delays.map((delay, i) => ({ json: { i, delay } }));
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		typeVersion,
		credentials,
		input,
		parameters: {
			...delayedPageLookup('/w'),
			options,
		},
	});
	expect(result.error).toBeUndefined();
	// Output order and pairing follow the input, whatever finished first.
	expect(result.items.map((item) => (item.json.data as Array<{ url: string }>)[0].url)).toEqual(
		input.map(({ json }) => `/w${json.i}`),
	);
	expect(result.items.map((item) => item.pairedItem)).toEqual(input.map((_, i) => ({ item: i })));
	return proxy.log.slice(first);
}

describe('sliding window (version 2)', () => {
	test(`by default ${DEFAULT_CONCURRENCY} requests are in flight, and a new one starts as soon as any answer arrives`, async () => {
		// Item 0 is slow; the others are quick. A batch barrier would hold the items after the first
		// window until item 0 is done.
		const count = DEFAULT_CONCURRENCY + 12;
		const delays = Array.from({ length: count }, (_, i) => (i === 0 ? 800 : 40));
		const requests = await getPages(delays, 2);
		expect(requests).toHaveLength(count);
		expect(maxInFlight(requests)).toBe(DEFAULT_CONCURRENCY);
		const slowest = requests.find((entry) => entry.path.includes('url=%2Fw0'))!;
		const started = requests.filter((entry) => entry.arrivedAt < slowest.finishedAt!);
		// Every other item started (and most finished) while item 0 was still waiting.
		expect(started.length).toBe(count);
	});

	test('Concurrency sets the window; 1 sends one item after the other', async () => {
		const three = await getPages(Array(9).fill(30), 2, { concurrency: 3 });
		expect(maxInFlight(three)).toBe(3);

		const one = await getPages(Array(5).fill(20), 2, { concurrency: 1 });
		expect(maxInFlight(one)).toBe(1);
		for (let i = 1; i < one.length; i++)
			expect(one[i].arrivedAt).toBeGreaterThanOrEqual(one[i - 1].finishedAt!);
	});

	test(`a Concurrency over ${MAX_CONCURRENCY} is held at ${MAX_CONCURRENCY}; one that is not a number falls back to the default`, async () => {
		const many = await getPages(Array(MAX_CONCURRENCY + 12).fill(150), 2, { concurrency: 1000 });
		expect(maxInFlight(many)).toBe(MAX_CONCURRENCY);
		const unreadable = await getPages(Array(DEFAULT_CONCURRENCY + 4).fill(150), 2, {
			concurrency: '=not a number',
		});
		expect(maxInFlight(unreadable)).toBe(DEFAULT_CONCURRENCY);
	});

	test('Batching groups items for a pause between groups, with at most Concurrency in flight in a group', async () => {
		const requests = await getPages(Array(12).fill(30), 2, {
			concurrency: 2,
			batching: { batch: { batchSize: 6, batchInterval: 200 } },
		});
		expect(maxInFlight(requests)).toBe(2);
		const firstGroupDone = Math.max(...requests.slice(0, 6).map((entry) => entry.finishedAt!));
		const secondGroupStart = Math.min(...requests.slice(6).map((entry) => entry.arrivedAt));
		expect(secondGroupStart - firstGroupDone).toBeGreaterThanOrEqual(190);
	});

	test('the first failure in input order stops the node, even when a later item failed first', async () => {
		const local = await ctx.tenant('window-fail');
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: proxy.url,
			token: local.token,
		});
		await seedPages(
			local.client,
			['/d0', '/d2', '/d4', '/d5'].map((url) => ({ url })),
		);
		// Deleting a missing page is a 404. Item 3 fails at once, item 1 only after 300 ms; the
		// others take 100 ms, so the window of 4 is still full when item 3 fails.
		const input = [
			{ url: '/d0', delay: 100 },
			{ url: '/missing-1', delay: 300 },
			{ url: '/d2', delay: 100 },
			{ url: '/missing-3', delay: 0 },
			{ url: '/d4', delay: 0 },
			{ url: '/d5', delay: 0 },
		].map((json) => ({ json }));
		const first = proxy.log.length;
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			typeVersion: 2,
			credentials,
			input,
			parameters: {
				resource: 'customApiCall',
				operation: 'call',
				method: 'DELETE',
				path: '/api/page',
				queryParameters: { parameter: [{ name: 'delay', value: '={{ $json.delay }}' }] },
				body: '={{ JSON.stringify({ url: $json.url }) }}',
				options: { concurrency: 4 },
			},
		});
		expect(result.items).toHaveLength(0);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.context?.itemIndex).toBe(1);
		// The items in flight finished; after the failure no new item started.
		expect(proxy.log.slice(first)).toHaveLength(4);
		expect((await listPages(local.client)).map((page) => page.url).sort()).toEqual(['/d4', '/d5']);
	});

	test('with Continue On Fail every error stays with its own item while the window runs', async () => {
		const local = await ctx.tenant('window-continue');
		await seedPages(local.client, [{ url: '/dup-1' }, { url: '/dup-5' }]);
		const urls = Array.from({ length: 12 }, (_, i) =>
			i === 1 || i === 5 ? `/dup-${i}` : i === 8 ? 'no slash' : `/new-${i}`,
		);
		const result = await local.run(
			{
				resource: 'page',
				operation: 'create',
				name: 'Page',
				url: '={{ $json.url }}',
				locale: 'en',
			},
			{ continueOnFail: true, typeVersion: 2, input: urls.map((url) => ({ json: { url } })) },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [
				item.pairedItem,
				item.json.error === undefined
					? (item.json.page as { url: string }).url
					: item.json.httpCode,
			]),
		).toEqual(
			urls.map((url, i) => [{ item: i }, i === 1 || i === 5 ? '409' : i === 8 ? '400' : url]),
		);
		expect((await listPages(local.client)).map((page) => page.url).sort()).toEqual(
			[...urls.filter((_, i) => i !== 1 && i !== 5 && i !== 8), '/dup-1', '/dup-5'].sort(),
		);
	});

	test('the Admin node runs its items through the window too', async () => {
		const credentials = ctx.runner.credentials.add('siteAdminApi', {
			baseUrl: `${proxy.url}/_/delay=80`,
			token: ctx.site.adminToken,
		});
		const first = proxy.log.length;
		const ids = Array.from({ length: DEFAULT_CONCURRENCY + 4 }, (_, i) => `window-admin-${i}`);
		const result = await ctx.runner.runNode({
			type: 'siteAdmin',
			typeVersion: 2,
			credentials,
			input: ids.map((id) => ({ json: { id } })),
			parameters: { resource: 'tenant', operation: 'create', id: '={{ $json.id }}' },
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual(ids.map((_, i) => ({ item: i })));
		expect(maxInFlight(proxy.log.slice(first))).toBe(DEFAULT_CONCURRENCY);
	});
});

describe('Get Many fetches the pages after the first through the window', () => {
	let listing: TenantContext;
	let expected: string[];
	beforeAll(async () => {
		listing = await ctx.tenant('window-list');
		await seedPages(
			listing.client,
			Array.from({ length: 450 }, (_, i) => ({ url: `/l${i}` })),
			25,
		);
		expected = (await listPages(listing.client)).map((page) => page.url as string);
		expect(expected).toHaveLength(450);
	});

	async function getMany(typeVersion: number, parameters: INodeParameters) {
		// Every page request held back 60 ms, so requests in flight together overlap visibly.
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: `${proxy.url}/_/delay=60`,
			token: listing.token,
		});
		const first = proxy.log.length;
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			typeVersion,
			credentials,
			parameters: { resource: 'page', operation: 'getAll', ...parameters },
		});
		expect(result.error).toBeUndefined();
		return { urls: result.items.map((item) => item.json.url), requests: proxy.log.slice(first) };
	}

	test('version 2: page 1 alone, then pages 2 to 5 at once, joined in page order', async () => {
		const { urls, requests } = await getMany(2, { returnAll: true });
		expect(urls).toEqual(expected);
		expect(requests).toHaveLength(5);
		const firstDone = requests[0].finishedAt!;
		expect(requests.slice(1).every((entry) => entry.arrivedAt >= firstDone)).toBe(true);
		expect(maxInFlight(requests)).toBe(4);
	});

	test('a Limit asks only for the pages it needs', async () => {
		const { urls, requests } = await getMany(2, { returnAll: false, limit: 250 });
		expect(urls).toEqual(expected.slice(0, 250));
		expect(requests).toHaveLength(3);
	});

	test('Concurrency 1, and version 1, read one page after the other', async () => {
		for (const run of [
			await getMany(2, { returnAll: true, options: { concurrency: 1 } }),
			await getMany(1, { returnAll: true }),
		]) {
			expect(run.urls).toEqual(expected);
			expect(maxInFlight(run.requests)).toBe(1);
		}
	});
});

describe('version 1 keeps its behaviour', () => {
	test('without options, one item at a time', async () => {
		const requests = await getPages(Array(5).fill(20), 1);
		expect(maxInFlight(requests)).toBe(1);
	});

	test('Batching runs a whole batch at once with a barrier between batches', async () => {
		const delays = [200, 20, 20, 20, 20, 20, 20, 20];
		const requests = await getPages(delays, 1, { batching: { batch: { batchSize: 4 } } });
		expect(maxInFlight(requests)).toBe(4);
		const firstBatchDone = Math.max(...requests.slice(0, 4).map((entry) => entry.finishedAt!));
		expect(Math.min(...requests.slice(4).map((entry) => entry.arrivedAt))).toBeGreaterThanOrEqual(
			firstBatchDone,
		);
	});
});

/** A tenant, a managed credential for it, and a run of 60 Page Creates on that credential. */
async function managedTenant(tenantId: string) {
	await ctx.site.createTenant(tenantId);
	const tokens = () =>
		(
			ctx.site.server.app.site.store.db
				.prepare(
					'SELECT COUNT(*) AS n FROM tokens k JOIN tenants t ON t.pk = k.tenant_pk WHERE t.id = ?',
				)
				.get(tenantId) as { n: number }
		).n;
	// Tokens issued since the tenant was made (with a token of its own).
	const before = tokens();
	const countTokens = () => tokens() - before;
	const credentials = ctx.runner.credentials.add(
		'siteManagedTenantApi',
		managedCredentialData(ctx.site, tenantId),
	);
	const createPages = async (prefix: string, typeVersion = 3, options: INodeParameters = {}) => {
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			typeVersion,
			credentials,
			input: Array.from({ length: 60 }, (_, i) => ({ json: { url: `/${prefix}${i}` } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: 'Page',
				url: '={{ $json.url }}',
				locale: 'en',
				options,
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(60);
	};
	return { countTokens, createPages };
}

test.each([
	[`a window of ${DEFAULT_CONCURRENCY} (version 2, default)`, 2, {}],
	['Batching 8 (version 1: a whole batch at once)', 1, { batching: { batch: { batchSize: 8 } } }],
	[
		'Batching 8 with Concurrency 8 (version 2)',
		2,
		{ batching: { batch: { batchSize: 8 } }, concurrency: 8 },
	],
] as Array<[string, number, INodeParameters]>)(
	'the managed credential mints one token for %s over 60 items',
	async (label, typeVersion, options) => {
		const { countTokens, createPages } = await managedTenant(
			`window-managed-${typeVersion}-${label.length}`,
		);
		await createPages('m', typeVersion, options);
		expect(countTokens()).toBe(1);
	},
);

describe('with a database between n8n and the credential', () => {
	// Each credential read and store takes 3 ms, one at a time, as n8n's queries do: most requests
	// read the credential before the first minted token is stored.
	beforeEach(() => {
		ctx.runner.credentials.databaseLatencyMs = 3;
	});
	afterEach(() => {
		ctx.runner.credentials.databaseLatencyMs = 0;
	});

	test.each([
		[`a window of ${DEFAULT_CONCURRENCY} (version 2, default)`, 2, {}],
		[`a window of ${DEFAULT_CONCURRENCY} (version 3, default)`, 3, {}],
		['Batching 8 (version 1: a whole batch at once)', 1, { batching: { batch: { batchSize: 8 } } }],
	] as Array<[string, number, INodeParameters]>)(
		'%s mints one token over 60 items, and the next execution none',
		async (label, typeVersion, options) => {
			const { countTokens, createPages } = await managedTenant(`db-${typeVersion}-${label.length}`);
			await createPages('a', typeVersion, options);
			expect(countTokens()).toBe(1);
			await createPages('b', typeVersion, options);
			expect(countTokens()).toBe(1);
		},
	);

	test('after a rotation revoked the token, the 60 items that get 401 share one new mint', async () => {
		const tenantId = 'db-revoked';
		const { countTokens, createPages } = await managedTenant(tenantId);
		await createPages('a');
		const rotation = await ctx.site.admin.post('/api/tenant/token', {
			id: tenantId,
			revoke_previous: true,
		});
		expect(rotation.status).toBe(200);
		expect(countTokens()).toBe(2);
		await createPages('b');
		expect(countTokens()).toBe(3);
	});
});

test('the credential is read once per node run and handed to each request (not once more per request by n8n)', async () => {
	const credentials = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: ctx.site.url,
		token: tenant.token,
	});
	const id = credentialId(credentials);
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		typeVersion: 2,
		credentials,
		input: Array.from({ length: 20 }, (_, i) => ({ json: { url: `/w${i}` } })),
		parameters: { resource: 'page', operation: 'get', url: '={{ $json.url }}' },
	});
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => item.json.url)).toEqual(
		Array.from({ length: 20 }, (_, i) => `/w${i}`),
	);
	// 20 requests, one read: httpRequestWithAuthentication gets the run's read (credentialsDecrypted).
	expect(ctx.runner.credentials.reads.get(id)).toBe(1);
});
