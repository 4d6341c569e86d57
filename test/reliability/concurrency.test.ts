/**
 * Options > Concurrency: items run through a sliding window of requests in flight (a new one starts
 * as each answer arrives, no barrier per batch); Batching groups them, with a barrier and an optional
 * pause between groups. Order, pairing, Continue On Fail and "the first failure in input order stops the node"
 * hold whatever finishes first. The managed credential mints one token per node run, shared by the
 * whole window, and a token revoked mid-run is replaced by one new mint shared by every request it
 * failed.
 */
import type { ICredentialDataDecryptedObject, INodeParameters } from 'n8n-workflow';

import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY } from '../../nodes/shared/window';
import { startDelayProxy, type DelayProxy, type ProxiedRequest } from '../harness/delay-proxy';
import {
	credentialId,
	delayedPageLookup,
	listPages,
	seedPages,
	storedPageRows,
	useNodeTestContext,
	type TenantContext,
} from '../harness/nodes';

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

/** How the proxy treats one item's request (directives of test/harness/delay-proxy.ts). */
interface Held {
	delay?: number;
	gather?: string;
	hold?: string;
}

/**
 * The same directives for `count` items: `gather` (`<key>:<n>`) has the proxy hold requests until n
 * are in flight together, so a window of n shows as n whatever the machine's speed.
 */
const items = (count: number, held: Held): Held[] => Array.from({ length: count }, () => held);

/** Page > Get for each item through the proxy, as its `Held` says; returns the proxy's log. */
async function getPages(held: Held[], options: INodeParameters = {}) {
	const credentials = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: proxy.url,
		token: tenant.token,
	});
	const first = proxy.log.length;
	const input = held.map((directives, i) => ({ json: { i, ...directives } }));
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
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

describe('sliding window', () => {
	test(`by default ${DEFAULT_CONCURRENCY} requests are in flight, and a new one starts as soon as any answer arrives`, async () => {
		// Item 0 is held until every other item has arrived; the others go on once the rest of the
		// first window is in flight with it. A batch barrier would hold the items after the first
		// window until item 0 is done, and they would never arrive.
		const count = DEFAULT_CONCURRENCY + 12;
		const first = proxy.log.length;
		const allArrived = proxy
			.until((log) => log.length - first >= count)
			.finally(() => proxy.release('w0'));
		const requests = await getPages([
			{ hold: 'w0' },
			...items(count - 1, { gather: `rest:${DEFAULT_CONCURRENCY - 1}` }),
		]);
		await allArrived;
		expect(requests).toHaveLength(count);
		expect(maxInFlight(requests)).toBe(DEFAULT_CONCURRENCY);
		const slowest = requests.find((entry) => entry.path.includes('url=%2Fw0'))!;
		const started = requests.filter((entry) => entry.arrivedAt < slowest.finishedAt!);
		// Every other item started (and most finished) while item 0 was still waiting.
		expect(started.length).toBe(count);
	});

	test('Concurrency sets the window; 1 sends one item after the other', async () => {
		const three = await getPages(items(9, { gather: 'three:3' }), { concurrency: 3 });
		expect(maxInFlight(three)).toBe(3);

		const one = await getPages(items(5, { delay: 20 }), { concurrency: 1 });
		expect(maxInFlight(one)).toBe(1);
		for (let i = 1; i < one.length; i++)
			expect(one[i].arrivedAt).toBeGreaterThanOrEqual(one[i - 1].finishedAt!);
	});

	test(`a Concurrency over ${MAX_CONCURRENCY} is held at ${MAX_CONCURRENCY}; one that is not a number falls back to the default`, async () => {
		const many = await getPages(
			items(MAX_CONCURRENCY + 12, { delay: 150, gather: `many:${MAX_CONCURRENCY}` }),
			{ concurrency: 1000 },
		);
		expect(maxInFlight(many)).toBe(MAX_CONCURRENCY);
		const unreadable = await getPages(
			items(DEFAULT_CONCURRENCY + 4, { delay: 150, gather: `unreadable:${DEFAULT_CONCURRENCY}` }),
			{ concurrency: '=not a number' },
		);
		expect(maxInFlight(unreadable)).toBe(DEFAULT_CONCURRENCY);
	});

	test('Batching groups items for a pause between groups, with at most Concurrency in flight in a group', async () => {
		const requests = await getPages(items(12, { delay: 30, gather: 'pairs:2' }), {
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
		// Deleting a missing page is a 404. Items 0 to 2 are held until item 3 has failed, so the
		// window of 4 is still full when it fails; item 1 fails after it.
		const input = [
			{ url: '/d0', hold: 'first-three' },
			{ url: '/missing-1', hold: 'first-three' },
			{ url: '/d2', hold: 'first-three' },
			{ url: '/missing-3' },
			{ url: '/d4' },
			{ url: '/d5' },
		].map((json) => ({ json }));
		const first = proxy.log.length;
		const failed = proxy
			.until((log) => log.slice(first).some((entry) => entry.status === 404))
			.finally(() => proxy.release('first-three'));
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input,
			parameters: {
				resource: 'customApiCall',
				operation: 'call',
				method: 'DELETE',
				path: '/api/page',
				queryParameters: { parameter: [{ name: 'hold', value: '={{ $json.hold ?? "" }}' }] },
				body: '={{ JSON.stringify({ url: $json.url }) }}',
				options: { concurrency: 4 },
			},
		});
		await failed;
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
			{ continueOnFail: true, input: urls.map((url) => ({ json: { url } })) },
		);
		expect(result.error).toBeUndefined();
		expect(
			result.items.map((item) => [
				item.pairedItem,
				item.json.error === undefined ? item.json.url : item.json.httpCode,
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
			baseUrl: `${proxy.url}/_/delay=80;gather=admin:${DEFAULT_CONCURRENCY}`,
			token: ctx.site.adminToken,
		});
		const first = proxy.log.length;
		const ids = Array.from({ length: DEFAULT_CONCURRENCY + 4 }, (_, i) => `window-admin-${i}`);
		const result = await ctx.runner.runNode({
			type: 'siteAdmin',
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

	async function getMany(parameters: INodeParameters, directives = 'delay=60') {
		// Every page request held back 60 ms, so requests in flight together overlap visibly.
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: `${proxy.url}/_/${directives}`,
			token: listing.token,
		});
		const first = proxy.log.length;
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: { resource: 'page', operation: 'getAll', ...parameters },
		});
		expect(result.error).toBeUndefined();
		return { urls: result.items.map((item) => item.json.url), requests: proxy.log.slice(first) };
	}

	test('page 1 alone, then pages 2 to 5 at once, joined in page order', async () => {
		// Pages 2 to 5 held until all four are in flight (page 1, alone, goes on after the gathering's
		// quiet time).
		const { urls, requests } = await getMany({ returnAll: true }, 'delay=60;gather=list:4');
		expect(urls).toEqual(expected);
		expect(requests).toHaveLength(5);
		const firstDone = requests[0].finishedAt!;
		expect(requests.slice(1).every((entry) => entry.arrivedAt >= firstDone)).toBe(true);
		expect(maxInFlight(requests)).toBe(4);
	});

	test('a Limit asks only for the pages it needs', async () => {
		const { urls, requests } = await getMany({ returnAll: false, limit: 250 });
		expect(urls).toEqual(expected.slice(0, 250));
		expect(requests).toHaveLength(3);
	});

	test('the walk reads the credential once for its item, not once per page', async () => {
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: listing.token,
		});
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: { resource: 'page', operation: 'getAll', returnAll: true },
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(450);
		expect(ctx.runner.credentials.reads.get(credentialId(credentials))).toBe(1);
	});

	test('Concurrency 1 reads one page after the other', async () => {
		const run = await getMany({ returnAll: true, options: { concurrency: 1 } });
		expect(run.urls).toEqual(expected);
		expect(maxInFlight(run.requests)).toBe(1);
	});
});

describe('Batching without Concurrency set', () => {
	test('runs a whole batch at once with a barrier between batches', async () => {
		const requests = await getPages(
			[200, 20, 20, 20, 20, 20, 20, 20].map((delay) => ({ delay, gather: 'batch:4' })),
			{ batching: { batch: { batchSize: 4 } } },
		);
		expect(maxInFlight(requests)).toBe(4);
		const firstBatchDone = Math.max(...requests.slice(0, 4).map((entry) => entry.finishedAt!));
		expect(Math.min(...requests.slice(4).map((entry) => entry.arrivedAt))).toBeGreaterThanOrEqual(
			firstBatchDone,
		);
	});
});

/**
 * A tenant, a managed credential for it (`overrides` on its data), and runs of `count` Page Creates on
 * that credential. `countTokens` is the number of tokens the server issued to the tenant since.
 */
async function managedTenant(tenantId: string, overrides: INodeParameters = {}, count = 60) {
	await ctx.site.createTenant(tenantId);
	// Tokens issued since the tenant was made (with a token of its own).
	const before = ctx.site.tokensIssued(tenantId);
	const countTokens = () => ctx.site.tokensIssued(tenantId) - before;
	const credentials = ctx.managedCredential(tenantId, overrides as ICredentialDataDecryptedObject);
	const urls = (prefix: string) => Array.from({ length: count }, (_, i) => `/${prefix}${i}`);
	const createPages = async (prefix: string, options: INodeParameters = {}) => {
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: urls(prefix).map((url) => ({ json: { url } })),
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
		expect(result.items.map((item) => item.json.url)).toEqual(urls(prefix));
		return result;
	};
	return { credentials, countTokens, createPages, urls };
}

/** Window and batching settings a run of the managed credential is tried with. */
const RUN_SETTINGS = [
	[`a window of ${DEFAULT_CONCURRENCY} (the default)`, {}],
	['Concurrency 1 (one item after the other)', { concurrency: 1 }],
	['Batching 8 with Concurrency 8', { batching: { batch: { batchSize: 8 } }, concurrency: 8 }],
] as Array<[string, INodeParameters]>;

test.each(RUN_SETTINGS)(
	'the managed credential mints one token for %s over 60 items',
	async (label, options) => {
		const { countTokens, createPages } = await managedTenant(`window-managed-${label.length}`);
		await createPages('m', options);
		expect(countTokens()).toBe(1);
	},
);

describe('with a database between n8n and the credential', () => {
	// Each credential read takes 3 ms, one at a time, as n8n's queries do: the requests of a window
	// read their item's credential at different moments, some while the run's mint is under way.
	beforeEach(() => {
		ctx.runner.credentials.databaseLatencyMs = 3;
	});
	afterEach(() => {
		ctx.runner.credentials.databaseLatencyMs = 0;
	});

	test.each(RUN_SETTINGS)(
		'%s mints one token over 60 items, and the next execution exactly one more',
		async (label, options) => {
			const { credentials, countTokens, createPages } = await managedTenant(`db-${label.length}`);
			const id = credentialId(credentials);
			const reads = ctx.runner.credentials.reads.get(id) ?? 0;
			await createPages('a', options);
			expect(countTokens()).toBe(1);
			// Each item read the credential (n8n resolves it per item); none of them minted again.
			expect((ctx.runner.credentials.reads.get(id) ?? 0) - reads).toBe(60);
			// Nothing is kept between runs: the next execution mints its own token, once.
			await createPages('b', options);
			expect(countTokens()).toBe(2);
			// Nothing was stored in n8n's credential either.
			expect(ctx.runner.credentials.read(id).accessToken).toBe('');
		},
	);

	test('a rotation between two runs costs the next run nothing more than its own mint', async () => {
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

test(`a token revoked in the middle of a run (window of ${DEFAULT_CONCURRENCY}) is replaced by one mint shared by every request it failed`, async () => {
	const tenantId = 'revoked-mid-run';
	// Three windows' worth of items. The proxy lets the first window through and holds every request
	// after it until the test releases them, so the second window is in flight (short of the server)
	// while the test revokes, however slowly the machine runs.
	const count = 3 * DEFAULT_CONCURRENCY;
	const { countTokens, createPages, urls } = await managedTenant(
		tenantId,
		{ baseUrl: `${proxy.url}/_/holdAfter=revoked:${DEFAULT_CONCURRENCY}` },
		count,
	);
	const first = proxy.log.length;
	const log = () => proxy.log.slice(first);
	const run = createPages('r');
	let inFlight: ProxiedRequest[];
	try {
		// The first window went through with the run's token and the second is held: revoke the token
		// now, as a rotation on the admin surface does.
		await proxy.until(() => log().length >= 2 * DEFAULT_CONCURRENCY);
		inFlight = log().filter((entry) => entry.finishedAt === undefined);
		const rotation = await ctx.site.admin.post('/api/tenant/token', {
			id: tenantId,
			revoke_previous: true,
		});
		expect(rotation.status).toBe(200);
		// Still the same window in flight after the rotation (none of it has reached the server yet).
		expect(log().filter((entry) => entry.finishedAt === undefined)).toEqual(inFlight);
		expect(inFlight).toHaveLength(DEFAULT_CONCURRENCY);
		expect(
			log()
				.slice(0, DEFAULT_CONCURRENCY)
				.every((entry) => entry.status === 201),
		).toBe(true);
	} finally {
		// The run ends inside this test whatever failed above: none of it outlives the test.
		proxy.release('revoked');
		await run;
	}

	// The run's mint, the rotation, and ONE replacement for all the requests the old token failed.
	expect(countTokens()).toBe(3);
	const bearer = (entry: ProxiedRequest) => String(entry.headers.authorization);
	const [minted, replacement] = [...new Set(log().map(bearer))];
	expect(new Set(log().map(bearer)).size).toBe(2);
	const refused = log().filter((entry) => entry.status === 401);
	// Exactly the window in flight was refused, each request presenting the revoked token once...
	const keys = (entries: ProxiedRequest[]) => entries.map((entry) => entry.idempotencyKey);
	expect(keys(refused)).toEqual(keys(inFlight));
	expect(refused.every((entry) => bearer(entry) === minted)).toBe(true);
	// ...and sent again, once, with the replacement, under its own Idempotency-Key.
	const resent = log().filter(
		(entry) => entry.status !== 401 && keys(refused).includes(entry.idempotencyKey),
	);
	expect(resent).toHaveLength(DEFAULT_CONCURRENCY);
	expect(resent.every((entry) => bearer(entry) === replacement)).toBe(true);
	expect(log()).toHaveLength(count + DEFAULT_CONCURRENCY);
	expect(log().every((entry) => entry.status === 201 || entry.status === 401)).toBe(true);
	// The revoked token went out with the first window (accepted) and the second (refused) only; every
	// request after the rotation carried the replacement.
	expect(log().map((entry) => (bearer(entry) === minted ? entry.status : 'replacement'))).toEqual([
		...Array(DEFAULT_CONCURRENCY).fill(201),
		...Array(DEFAULT_CONCURRENCY).fill(401),
		...Array(count - DEFAULT_CONCURRENCY).fill('replacement'),
	]);
	// Every item landed once (read from the database: the rotation revoked the tenant's own token too).
	expect(
		storedPageRows(ctx.site, tenantId)
			.map((row) => row.url)
			.sort(),
	).toEqual(urls('r').sort());
});

test('the credential is read once per item, as n8n resolves it for each (not once more per request by n8n)', async () => {
	const credentials = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: ctx.site.url,
		token: tenant.token,
	});
	const id = credentialId(credentials);
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials,
		input: Array.from({ length: 20 }, (_, i) => ({ json: { url: `/w${i}` } })),
		parameters: { resource: 'page', operation: 'get', url: '={{ $json.url }}' },
	});
	expect(result.error).toBeUndefined();
	expect(result.items.map((item) => item.json.url)).toEqual(
		Array.from({ length: 20 }, (_, i) => `/w${i}`),
	);
	// 20 requests, 20 reads: each request reads its item's credential and hands it to
	// httpRequestWithAuthentication (credentialsDecrypted), which does not read it again.
	expect(ctx.runner.credentials.reads.get(id)).toBe(20);
});
