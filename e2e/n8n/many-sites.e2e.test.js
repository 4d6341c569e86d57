'use strict';
/**
 * Many sites from one workflow, in a real n8n (2.x by default; n8n 1.x with
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime): every item reaches the tenant n8n resolves for it, and an
 * edited credential acts on its new tenant and host from the next run on.
 *
 * - 8 Page Creates alternating tenants alpha and beta at the node's default concurrency, three ways:
 *   (a) a Managed Tenant credential whose Tenant ID is `{{ $json.tenant }}`; (b) a Tenant Token
 *   credential whose token is `{{ $json.token }}`; (c) a Managed Tenant credential with Tenant Scope
 *   "Any Tenant" and the node's Tenant parameter `{{ $json.tenant }}` (By ID). 4 pages land on each,
 *   and the managed ways mint exactly one token per tenant in the execution (one Tenant node; where
 *   an execution has two, each node's run mints its own).
 * - Continue On Fail: items naming a tenant that does not exist fail, the others land.
 * - A tenant deleted mid-run: the Admin node deletes it between two Tenant nodes of one execution
 *   (deterministic, unlike a deletion racing the requests of one node); the second Tenant node fails
 *   only that tenant's items.
 * - A credential edited in n8n (the editor's own `PATCH /rest/credentials/:id`) between two runs:
 *   the Tenant node follows its Tenant ID, then its Admin and Tenant Base URLs (edited together: a
 *   token is only good on the service that minted it) to a second reference server, which is only
 *   ever sent tokens it minted after the edit; the Contact Form Trigger, published after the edit,
 *   registers with the new tenant and leaves the old tenant's settings as they are; the Site
 *   Management Trigger's items then name the new tenant, and the switch itself reports nothing
 *   (neither the old site's pages as removed nor the new site's as published).
 *
 * Tokens are counted where they are minted: a temporary SQLite trigger on the reference servers'
 * in-memory databases logs every token row inserted, with its tenant (a tenant's rows go when it is
 * deleted; the log stays). The counts are printed in one `[many-sites]` line at the end.
 *
 * One stack for the file: two reference servers (in memory, loopback, port 0) and one `n8n start`;
 * workflows run through its REST API (as the editor's "Execute workflow"), so n8n starts once.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const processes = require('../../scripts/lib/process');
const { restClient } = require('../../scripts/lib/rest');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');
const runData = require('./lib/run-data');

const say = e2eStack.progressLog('n8n many sites');

const N8N_1 = path.basename(runtime.RUNTIME_DIR) === 'n8n1-runtime';
const N8N_VERSION = (() => {
	try {
		return JSON.parse(
			fs.readFileSync(path.join(runtime.RUNTIME_MODULES, 'n8n', 'package.json'), 'utf8'),
		).version;
	} catch {
		return N8N_1 ? '1.x' : '2.x';
	}
})();

const PACKAGE = 'n8n-nodes-site-management';
const TENANT_NODE = `${PACKAGE}.siteTenant`;
const ADMIN_NODE = `${PACKAGE}.siteAdmin`;
const PAGE_TRIGGER_NODE = `${PACKAGE}.sitePageTrigger`;
const FORM_TRIGGER_NODE = `${PACKAGE}.siteContactFormTrigger`;

const [ALPHA, BETA, GHOST, DOOMED] = ['alpha', 'beta', 'ghost', 'doomed'];
const [EDIT_A, EDIT_B] = ['edit-a', 'edit-b'];
const [FORM_A, FORM_B] = ['form-a', 'form-b'];
const [WATCH_A, WATCH_B] = ['watch-a', 'watch-b'];
/** Where the old tenant's owner points its contact form after the move (nothing listens there). */
const OWN_RECEIVER = 'http://127.0.0.1:9/form-a-own-receiver';

const CREDENTIALS = {
	tenantIdPerItem: {
		id: 'e2eManyTenantId1',
		name: 'Managed (Tenant ID per item)',
		type: 'siteManagedTenantApi',
	},
	tokenPerItem: { id: 'e2eManyTokenItm1', name: 'Tenant (token per item)', type: 'siteTenantApi' },
	anyTenant: { id: 'e2eManyAnyTenant', name: 'Managed (any tenant)', type: 'siteManagedTenantApi' },
	admin: { id: 'e2eManyAdmin0001', name: 'Admin', type: 'siteAdminApi' },
	edited: { id: 'e2eManyEdited001', name: 'Managed (edited)', type: 'siteManagedTenantApi' },
	form: { id: 'e2eManyForm00001', name: 'Managed (contact form)', type: 'siteManagedTenantApi' },
	watch: { id: 'e2eManyWatch0001', name: 'Managed (page trigger)', type: 'siteManagedTenantApi' },
};
const WORKFLOWS = {
	tenantIdPerItem: 'e2eManyTenantIdW',
	tokenPerItem: 'e2eManyTokenW001',
	tenantParameter: 'e2eManyParamW001',
	ghost: 'e2eManyGhostW001',
	deleted: 'e2eManyDeletedW1',
	edited: 'e2eManyEditedW01',
	form: 'e2eManyFormW0001',
	watch: 'e2eManyWatchW001',
};

const ctx = {
	/** Tokens minted per tenant in each scenario, for the `[many-sites]` line. */
	counts: {},
};

const sleep = processes.sleep;
const sha256 = (value) => crypto.createHash('sha256').update(value).digest('hex');
// n8n's own flatted, read once the runtime is installed (a fresh clone has none when this file loads).

// ---- the reference servers ----

/**
 * Logs every token row the server inserts, with its tenant, in a temporary table of its own
 * in-memory database (one connection: the server's): mints stay counted after a tenant is deleted.
 */
function logMints(server) {
	const { db } = server.app.site.store;
	db.exec(`
		CREATE TEMP TABLE mint_log (tenant_id TEXT NOT NULL, token_hash TEXT NOT NULL, created_at TEXT NOT NULL);
		CREATE TEMP TRIGGER mint_logger AFTER INSERT ON main.tokens BEGIN
			INSERT INTO mint_log SELECT id, NEW.token_hash, NEW.created_at FROM main.tenants WHERE pk = NEW.tenant_pk;
		END;
	`);
}

/** Tokens minted per tenant on a server so far: { tenant: n }. */
function mints(server) {
	return Object.fromEntries(
		server.app.site.store.db
			.prepare('SELECT tenant_id, COUNT(*) AS n FROM temp.mint_log GROUP BY tenant_id')
			.all()
			.map((row) => [row.tenant_id, row.n]),
	);
}

/** Tokens minted per tenant between two mints() of a server, for the given tenants. */
function difference(before, after, tenants) {
	return Object.fromEntries(
		tenants.map((tenant) => [tenant, (after[tenant] ?? 0) - (before[tenant] ?? 0)]),
	);
}

/** Tokens minted per tenant on a server since `before` (from mints()), for the given tenants. */
const mintedSince = (server, before, tenants) => difference(before, mints(server), tenants);

/** The tokens minted on a server (for `tenant`, when given): [{ token_hash, created_at }]. */
function mintedHashes(server, tenant) {
	return server.app.site.store.db
		.prepare(
			tenant
				? 'SELECT token_hash, created_at FROM temp.mint_log WHERE tenant_id = ?'
				: 'SELECT token_hash, created_at FROM temp.mint_log',
		)
		.all(...(tenant ? [tenant] : []));
}

/**
 * Every request a server receives with a bearer token, from now on: a list of { method, url, token }
 * (the listener runs before the server's own).
 */
function recordBearers(server) {
	const seen = [];
	server.app.server.prependListener('request', (request) => {
		const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
		if (token) seen.push({ method: request.method, url: request.url, token });
	});
	return seen;
}

/** The requests of `seen` (from recordBearers) made with a token minted on `server` for `tenant`. */
function requestsOf(seen, server, tenant) {
	const hashes = new Set(mintedHashes(server, tenant).map((row) => row.token_hash));
	return seen.filter(({ token }) => hashes.has(sha256(token)));
}

/** The page URLs of a tenant (its own token), sorted. */
async function pageUrls(client) {
	const answer = await client('GET', '/api/pages?per_page=100');
	expect(answer.status).toBe(200);
	return answer.data.data.map((page) => page.url).sort();
}

/** The URLs of items `indexes` of a list of item urls, sorted. */
const urlsAt = (urls, indexes) => indexes.map((index) => urls[index]).sort();

// ---- workflows ----

const node = (name, type, typeVersion, parameters, x, extra = {}) =>
	e2eStack.workflowNode({ name, type, typeVersion, parameters, position: [x, 0], ...extra });

const credentialRef = (key) => ({ credentials: e2eStack.credentialRef(CREDENTIALS[key]) });

/** A stable UUID-shaped id from a seed (a webhook id that stays the same). */
function idFrom(seed) {
	const hex = sha256(seed);
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A workflow from its nodes and the connections between them (`[from, to]` pairs, output 0 to
 * input 0). Manual runs are kept (the REST API reads them back).
 */
const workflow = (id, name, nodes, links) => e2eStack.workflowJson({ id, name, nodes, links });

/** Start -> "Items" (a Set node with the list) -> "One item each" (Split Out): the items given. */
function itemSource(items, x = 0) {
	return {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, x),
			node(
				'Items',
				'n8n-nodes-base.set',
				3.4,
				{ mode: 'raw', jsonOutput: JSON.stringify({ items }), options: {} },
				x + 200,
			),
			node(
				'One item each',
				'n8n-nodes-base.splitOut',
				1,
				{ fieldToSplitOut: 'items', options: {} },
				x + 400,
			),
		],
		links: [
			['Start', 'Items'],
			['Items', 'One item each'],
		],
	};
}

/** Page > Create with the Tenant node, named and placed as given. */
function createPageNode(
	name,
	x,
	{ managed = true, tenantParameter = false, onFail = false, url = '={{ $json.url }}' } = {},
) {
	return node(
		name,
		TENANT_NODE,
		1,
		{
			...(managed ? { authentication: 'managedTenant' } : {}),
			...(tenantParameter
				? { tenant: { __rl: true, mode: 'id', value: '={{ $json.tenant }}' } }
				: {}),
			resource: 'page',
			operation: 'create',
			name: '={{ "Page " + $json.url }}',
			url,
			locale: 'en',
			additionalFields: {},
		},
		x,
		onFail ? { onError: 'continueRegularOutput' } : {},
	);
}

/** `count` items alternating `tenants`, each with its tenant, a url of its own and `extra`. */
function alternating(tenants, count, prefix, extra = () => ({})) {
	return Array.from({ length: count }, (_, index) => {
		const tenant = tenants[index % tenants.length];
		return { tenant, url: `/${prefix}-${index}`, ...extra(tenant) };
	});
}

/** The items of each scenario (kept to check what landed where). */
const ITEMS = {
	tenantIdPerItem: alternating([ALPHA, BETA], 8, 'by-tenant-id'),
	tenantParameter: alternating([ALPHA, BETA], 8, 'by-tenant-parameter'),
	ghost: alternating([ALPHA, GHOST, BETA, GHOST], 8, 'ghost'),
	deleted: alternating([ALPHA, DOOMED], 8, 'deleted'),
};

/** One Tenant node after the item source. */
function createWorkflow(id, title, items, credential, options) {
	const source = itemSource(items);
	const create = { ...createPageNode('Create page', 600, options), ...credentialRef(credential) };
	return workflow(
		id,
		title,
		[...source.nodes, create],
		[...source.links, ['One item each', 'Create page']],
	);
}

function buildWorkflows() {
	const ghostSource = itemSource(ITEMS.ghost);
	const ghostNodes = [
		{
			...createPageNode('Create (Tenant parameter)', 600, {
				tenantParameter: true,
				onFail: true,
				url: '={{ $json.url + "-parameter" }}',
			}),
			...credentialRef('anyTenant'),
		},
		{
			...createPageNode('Create (Tenant ID expression)', 600, {
				onFail: true,
				url: '={{ $json.url + "-tenant-id" }}',
			}),
			...credentialRef('tenantIdPerItem'),
		},
	];

	// Create on alpha and doomed -> the Admin node deletes doomed (once) -> the same items again -> Create.
	const deletedSource = itemSource(ITEMS.deleted);
	const again = itemSource(ITEMS.deleted, 1000);
	const deletedNodes = [
		...deletedSource.nodes,
		{
			...createPageNode('Create before', 600, {
				tenantParameter: true,
				url: '={{ $json.url + "-before" }}',
			}),
			...credentialRef('anyTenant'),
		},
		node(
			'Delete doomed',
			ADMIN_NODE,
			1,
			{ resource: 'tenant', operation: 'delete', id: DOOMED },
			800,
			{ executeOnce: true, ...credentialRef('admin') },
		),
		{ ...again.nodes[1], name: 'Items again' },
		{ ...again.nodes[2], name: 'One item each again' },
		{
			...createPageNode('Create after', 1400, {
				tenantParameter: true,
				onFail: true,
				url: '={{ $json.url + "-after" }}',
			}),
			...credentialRef('anyTenant'),
		},
	];

	const edited = itemSource([{ url: '/edited-1' }, { url: '/edited-2' }]);
	const editedCreate = {
		...createPageNode('Create page', 600, { url: '={{ $json.url + "-" + $execution.id }}' }),
		...credentialRef('edited'),
	};

	const noOp = (x) => node('No Op', 'n8n-nodes-base.noOp', 1, {}, x);
	const formTrigger = node(
		'Contact form',
		FORM_TRIGGER_NODE,
		1,
		{
			registration: 'automatic',
			authentication: 'managedTenant',
			path: 'many-sites-form',
			ignoreRepeats: true,
			options: {},
		},
		0,
		{ webhookId: idFrom(`${WORKFLOWS.form}/webhook`), ...credentialRef('form') },
	);
	const pageTrigger = node(
		'Page changes',
		PAGE_TRIGGER_NODE,
		1,
		{
			authentication: 'managedTenant',
			pollTimes: { item: e2eStack.FAST_POLLS },
			events: ['pagePublished', 'pageUpdated', 'pageRemoved'],
			includeDrafts: false,
			includeContent: false,
		},
		0,
		credentialRef('watch'),
	);

	return [
		createWorkflow(
			WORKFLOWS.tenantIdPerItem,
			'many sites: Tenant ID per item',
			ITEMS.tenantIdPerItem,
			'tenantIdPerItem',
		),
		createWorkflow(
			WORKFLOWS.tokenPerItem,
			'many sites: token per item',
			ctx.tokenItems,
			'tokenPerItem',
			{ managed: false },
		),
		createWorkflow(
			WORKFLOWS.tenantParameter,
			'many sites: Tenant parameter',
			ITEMS.tenantParameter,
			'anyTenant',
			{ tenantParameter: true },
		),
		workflow(
			WORKFLOWS.ghost,
			'many sites: a tenant that does not exist',
			[...ghostSource.nodes, ...ghostNodes],
			[
				...ghostSource.links,
				['One item each', 'Create (Tenant parameter)'],
				['One item each', 'Create (Tenant ID expression)'],
			],
		),
		workflow(WORKFLOWS.deleted, 'many sites: a tenant deleted mid-run', deletedNodes, [
			...deletedSource.links,
			['One item each', 'Create before'],
			['Create before', 'Delete doomed'],
			['Delete doomed', 'Items again'],
			['Items again', 'One item each again'],
			['One item each again', 'Create after'],
		]),
		workflow(
			WORKFLOWS.edited,
			'many sites: an edited credential',
			[...edited.nodes, editedCreate],
			[...edited.links, ['One item each', 'Create page']],
		),
		workflow(
			WORKFLOWS.form,
			'many sites: contact form',
			[formTrigger, noOp(220)],
			[['Contact form', 'No Op']],
		),
		workflow(
			WORKFLOWS.watch,
			'many sites: page trigger',
			[pageTrigger, noOp(220)],
			[['Page changes', 'No Op']],
		),
	];
}

// ---- n8n ----

/** "Execute workflow" as the editor sends it (n8n 1.x takes the workflow with the request). */
async function run(workflowId) {
	const body = { triggerToStartFrom: { name: 'Start' } };
	if (N8N_1) body.workflowData = await ctx.rest.call('GET', `/workflows/${workflowId}`);
	const started = await ctx.rest.call('POST', `/workflows/${workflowId}/run`, body);
	if (!started?.executionId)
		throw new Error(`n8n did not start ${workflowId}: ${JSON.stringify(started)}`);
	// n8n 1.x may mark an execution ended a moment before its data is saved (it then answers 500
	// "Found successful execution where data is empty"): wait for the data too.
	const execution = await stack.waitFor(
		`execution ${started.executionId} of ${workflowId} with its data`,
		async () => {
			const ended = await ctx.rest.waitForExecution(String(started.executionId));
			return ended.run.data?.resultData?.lastNodeExecuted ? ended : undefined;
		},
		{ timeoutMs: 120_000 },
	);
	if (execution.status !== 'success') {
		const error = execution.run.data?.resultData?.error;
		throw new Error(
			`execution ${execution.id} of ${workflowId} ended ${execution.status}: ${error ? `${error.node?.name ?? ''}: ${error.message}` : ''}`,
		);
	}
	say(`${workflowId}: execution ${execution.id}`);
	return execution;
}

const items = (execution, name) => n8nCommands.nodeItems(execution.run, name);

/** Edits a credential as the editor does (e2eStack.editCredential). */
async function editCredential(key, changes) {
	await e2eStack.editCredential(ctx, CREDENTIALS[key].id, changes);
	say(`credential ${key} edited: ${JSON.stringify(changes)}`);
}

async function activate(workflowId) {
	await ctx.rest.activateWorkflow(workflowId);
	say(`${workflowId} published`);
}

async function deactivate(workflowId) {
	await ctx.rest.call('POST', `/workflows/${workflowId}/deactivate`, {});
	say(`${workflowId} unpublished`);
}

/** The executions n8n stored for a workflow that have ended (run-data.js). */
const endedExecutions = (workflowId) => runData.endedExecutions(ctx.userFolder, workflowId);

/** Waits for the workflow's execution number `count` (1-based) to end; resolves to it. */
async function nthExecution(workflowId, count, what) {
	return await stack.waitFor(
		what,
		async () => {
			const list = endedExecutions(workflowId);
			return list.length >= count ? list[count - 1] : undefined;
		},
		{ timeoutMs: 90_000, everyMs: 500 },
	);
}

// ---- set-up ----

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer({
		deliveryRetryBaseMs: 200,
		// n8n's webhook URL is on loopback: the site delivers there only when allowed.
		webhookAllow: 'loopback',
	});
	// The second service (a new host for the edited credential), with the same admin token: the edit
	// changes only the two base URLs, as a move of the service would.
	ctx.far = await e2eStack.startReferenceServer({ adminToken: ctx.server.adminToken });
	logMints(ctx.server);
	logMints(ctx.far);
	ctx.nearSeen = recordBearers(ctx.server);
	ctx.farSeen = recordBearers(ctx.far);

	ctx.tenants = {};
	for (const id of [ALPHA, BETA, DOOMED, EDIT_A, EDIT_B, FORM_A, FORM_B, WATCH_A, WATCH_B])
		ctx.tenants[id] = await e2eStack.addTenant(ctx.server, id);
	ctx.farEditB = await e2eStack.addTenant(ctx.far, EDIT_B);
	ctx.tokenItems = alternating([ALPHA, BETA], 8, 'by-token', (tenant) => ({
		token: ctx.tenants[tenant].token,
	}));
	for (const [tenant, url] of [
		[WATCH_A, '/a-1'],
		[WATCH_B, '/b-1'],
		[WATCH_B, '/b-2'],
	]) {
		const created = await ctx.tenants[tenant].client('POST', '/api/page', {
			name: `Page ${url}`,
			url,
			locale: 'en',
		});
		expect(created.status).toBe(201);
	}
	say(`reference servers ${ctx.server.url} and ${ctx.far.url}`);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-many-sites-'));
	const managed = (tenantId) => ({
		adminBaseUrl: ctx.server.url,
		adminToken: ctx.server.adminToken,
		tenantId,
		baseUrl: ctx.server.url,
		lifetime: 900,
		accessToken: '',
	});
	const data = {
		tenantIdPerItem: managed('={{ $json.tenant }}'),
		tokenPerItem: { baseUrl: ctx.server.url, token: '={{ $json.token }}' },
		anyTenant: { ...managed(''), tenantScope: 'any' },
		admin: { baseUrl: ctx.server.url, token: ctx.server.adminToken },
		edited: managed(EDIT_A),
		form: managed(FORM_A),
		watch: managed(WATCH_A),
	};
	await e2eStack.importFixtures(ctx, {
		credentials: Object.entries(CREDENTIALS).map(([key, credential]) => ({
			...credential,
			data: data[key],
		})),
		workflows: buildWorkflows(),
		folder: 'many-sites-workflows',
	});
	ctx.n8n = await e2eStack.startN8nIn(ctx);
	ctx.rest = await restClient(ctx.n8nUrl, {
		email: 'owner@many-sites.example.com',
		firstName: 'E2E',
		lastName: 'Owner',
		password: `E2e-${crypto.randomBytes(12).toString('base64url')}`,
	});
	say(`n8n ${N8N_VERSION} on ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	const line = Object.entries(ctx.counts)
		.map(([scenario, counts]) => `${scenario}: ${JSON.stringify(counts)}`)
		.join('; ');
	console.log(`[many-sites] n8n ${N8N_VERSION}, tokens minted per tenant: ${line}`);
	if (ctx.far) await ctx.far.close();
	await e2eStack.stopStack(ctx);
});

// ---- the tests ----

/** Runs one of the 8-create workflows; checks 4 pages on alpha and 4 on beta; resolves to the mints. */
async function eightCreates(workflowId, list) {
	const before = mints(ctx.server);
	const execution = await run(workflowId);
	const output = items(execution, 'Create page');
	expect(output).toHaveLength(8);
	expect(output.filter((item) => item.error)).toEqual([]);
	const urls = list.map((item) => item.url);
	const onAlpha = (await pageUrls(ctx.tenants[ALPHA].client)).filter((url) => urls.includes(url));
	const onBeta = (await pageUrls(ctx.tenants[BETA].client)).filter((url) => urls.includes(url));
	expect(onAlpha).toEqual(urlsAt(urls, [0, 2, 4, 6]));
	expect(onBeta).toEqual(urlsAt(urls, [1, 3, 5, 7]));
	return mintedSince(ctx.server, before, [ALPHA, BETA]);
}

describe('8 creates alternating two tenants, at the default concurrency', () => {
	test('(a) Managed Tenant credential, Tenant ID {{ $json.tenant }}: 4 pages on each, one token per tenant', async () => {
		const minted = await eightCreates(WORKFLOWS.tenantIdPerItem, ITEMS.tenantIdPerItem);
		ctx.counts['(a) Tenant ID per item'] = minted;
		expect(minted).toEqual({ [ALPHA]: 1, [BETA]: 1 });
	});

	test('(b) Tenant Token credential, token {{ $json.token }}: 4 pages on each, nothing minted', async () => {
		const minted = await eightCreates(WORKFLOWS.tokenPerItem, ctx.tokenItems);
		ctx.counts['(b) token per item'] = minted;
		expect(minted).toEqual({ [ALPHA]: 0, [BETA]: 0 });
	});

	test("(c) one admin credential (Any Tenant), the node's Tenant parameter {{ $json.tenant }} By ID: 4 pages on each, one token per tenant", async () => {
		const minted = await eightCreates(WORKFLOWS.tenantParameter, ITEMS.tenantParameter);
		ctx.counts['(c) Tenant parameter'] = minted;
		expect(minted).toEqual({ [ALPHA]: 1, [BETA]: 1 });
	});
});

/** Which items of a continue-on-fail node failed (indexes), and the messages. */
function failures(output) {
	return output
		.map((item, index) => ({ index, error: item.error }))
		.filter((item) => item.error !== undefined);
}

describe('failures stay with their own items (Continue On Fail)', () => {
	test('a tenant that does not exist: only its items fail, the others land', async () => {
		const before = mints(ctx.server);
		const execution = await run(WORKFLOWS.ghost);
		for (const name of ['Create (Tenant parameter)', 'Create (Tenant ID expression)']) {
			const output = items(execution, name);
			expect(output).toHaveLength(8);
			const failed = failures(output);
			expect(failed.map((item) => item.index)).toEqual([1, 3, 5, 7]);
			for (const { error } of failed)
				expect(error).toContain(`Could not get a token for tenant "${GHOST}"`);
		}
		const urls = ITEMS.ghost.map((item) => item.url);
		const expected = (indexes) =>
			indexes.flatMap((index) => [`${urls[index]}-parameter`, `${urls[index]}-tenant-id`]).sort();
		const landed = async (tenant) =>
			(await pageUrls(ctx.tenants[tenant].client)).filter((url) => url.startsWith('/ghost-'));
		expect(await landed(ALPHA)).toEqual(expected([0, 4]));
		expect(await landed(BETA)).toEqual(expected([2, 6]));
		const minted = mintedSince(ctx.server, before, [ALPHA, BETA, GHOST]);
		ctx.counts['missing tenant (2 Tenant nodes)'] = minted;
		// Two Tenant nodes in the execution share its one token per tenant.
		expect(minted).toEqual({ [ALPHA]: 1, [BETA]: 1, [GHOST]: 0 });
	});

	test('a tenant deleted mid-run (by the Admin node, between two Tenant nodes): the second fails only its items', async () => {
		const before = mints(ctx.server);
		const execution = await run(WORKFLOWS.deleted);
		expect(failures(items(execution, 'Create before'))).toEqual([]);
		expect(items(execution, 'Delete doomed')).toEqual([
			expect.objectContaining({ id: DOOMED, deleted: true }),
		]);
		const after = items(execution, 'Create after');
		expect(after).toHaveLength(8);
		const failed = failures(after);
		expect(failed.map((item) => item.index)).toEqual([1, 3, 5, 7]);
		for (const { error } of failed)
			expect(error).toContain(`Could not get a token for tenant "${DOOMED}"`);

		const urls = ITEMS.deleted.map((item) => item.url);
		const alphaUrls = urlsAt(urls, [0, 2, 4, 6]);
		expect(
			(await pageUrls(ctx.tenants[ALPHA].client)).filter((url) => url.startsWith('/deleted-')),
		).toEqual(
			[
				...alphaUrls.map((url) => `${url}-after`),
				...alphaUrls.map((url) => `${url}-before`),
			].sort(),
		);
		const admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
		expect((await admin('POST', '/api/tenant/token', { id: DOOMED })).status).toBe(404);
		const minted = mintedSince(ctx.server, before, [ALPHA, DOOMED]);
		ctx.counts['tenant deleted mid-run (2 Tenant nodes)'] = minted;
		expect(minted).toEqual({ [ALPHA]: 1, [DOOMED]: 1 });
	});
});

describe('a credential edited in n8n acts on its new tenant and host from the next run on', () => {
	test('Tenant node: Tenant ID edited, then both base URLs to a second service that only ever sees tokens it minted after the edit', async () => {
		const edited = (execution) => ['/edited-1', '/edited-2'].map((url) => `${url}-${execution.id}`);
		const pagesOf = async (client) =>
			(await pageUrls(client)).filter((url) => url.startsWith('/edited-'));
		const near = () => mints(ctx.server);
		const far = () => mints(ctx.far);

		let before = near();
		const first = await run(WORKFLOWS.edited);
		expect(await pagesOf(ctx.tenants[EDIT_A].client)).toEqual(edited(first));
		ctx.counts['edited, run 1 (Tenant ID edit-a)'] = mintedSince(ctx.server, before, [
			EDIT_A,
			EDIT_B,
		]);
		expect(ctx.counts['edited, run 1 (Tenant ID edit-a)']).toEqual({ [EDIT_A]: 1, [EDIT_B]: 0 });

		await editCredential('edited', { tenantId: EDIT_B });
		before = near();
		const second = await run(WORKFLOWS.edited);
		expect(await pagesOf(ctx.tenants[EDIT_A].client)).toEqual(edited(first));
		expect(await pagesOf(ctx.tenants[EDIT_B].client)).toEqual(edited(second));
		ctx.counts['edited, run 2 (Tenant ID edit-b)'] = mintedSince(ctx.server, before, [
			EDIT_A,
			EDIT_B,
		]);
		expect(ctx.counts['edited, run 2 (Tenant ID edit-b)']).toEqual({ [EDIT_A]: 0, [EDIT_B]: 1 });

		const editedAt = Date.now();
		const seenBefore = ctx.farSeen.length;
		await editCredential('edited', { adminBaseUrl: ctx.far.url, baseUrl: ctx.far.url });
		before = near();
		const farBefore = far();
		const third = await run(WORKFLOWS.edited);
		expect(await pagesOf(ctx.farEditB.client)).toEqual(edited(third));
		expect(await pagesOf(ctx.tenants[EDIT_B].client)).toEqual(edited(second));
		const nearMinted = mintedSince(ctx.server, before, [EDIT_A, EDIT_B]);
		const farMinted = mintedSince(ctx.far, farBefore, [EDIT_B]);
		ctx.counts['edited, run 3 (both base URLs to the second service)'] = {
			...nearMinted,
			[`second service ${EDIT_B}`]: farMinted[EDIT_B],
		};
		expect(nearMinted).toEqual({ [EDIT_A]: 0, [EDIT_B]: 0 });
		expect(farMinted).toEqual({ [EDIT_B]: 1 });

		// What the second service was sent: the admin token (to mint) and only the token it minted.
		const ownTestToken = ctx.farEditB.token;
		const sent = ctx.farSeen
			.slice(seenBefore)
			.filter(({ token }) => token !== ctx.server.adminToken && token !== ownTestToken);
		expect(sent.length).toBeGreaterThan(0);
		const farMints = mintedHashes(ctx.far, EDIT_B);
		const nearHashes = new Set(mintedHashes(ctx.server).map((row) => row.token_hash));
		for (const { token } of sent) {
			const hash = sha256(token);
			expect(nearHashes.has(hash)).toBe(false);
			const minted = farMints.find((row) => row.token_hash === hash);
			expect(minted).toBeDefined();
			expect(Date.parse(minted.created_at)).toBeGreaterThanOrEqual(editedAt - 1000);
		}
	});

	test('Contact Form Trigger: published after the edit, it registers with the new tenant; the old tenant keeps its own settings', async () => {
		const formA = ctx.tenants[FORM_A].client;
		const formB = ctx.tenants[FORM_B].client;
		const settings = async (client) => (await client('GET', '/api/settings')).data.settings;
		const registeredUrl = async (client) => {
			const url = (await settings(client)).contact_form_webhook_url;
			return typeof url === 'string' && url.startsWith(`${ctx.n8nUrl}/webhook/`) ? url : undefined;
		};
		const submit = async (tenant, message) => {
			const answer = await stack.siteClient(ctx.server.url)('POST', `/forms/${tenant}/contact`, {
				message,
			});
			expect(answer.status).toBe(202);
			return answer.data.submission_id;
		};
		const triggerItem = (execution) => {
			const output = items(execution, 'Contact form');
			expect(output).toHaveLength(1);
			return output[0];
		};
		const start = mints(ctx.server);

		await activate(WORKFLOWS.form);
		const urlOnA = await stack.waitFor('the registration on form-a', () => registeredUrl(formA), {
			timeoutMs: 60_000,
		});
		const firstId = await submit(FORM_A, 'to A');
		const first = await nthExecution(WORKFLOWS.form, 1, 'the submission to form-a');
		expect(triggerItem(first)).toMatchObject({ submission_id: firstId, tenant_id: FORM_A });
		await deactivate(WORKFLOWS.form);
		await stack.waitFor('form-a to be unregistered', async () =>
			(await settings(formA)).contact_form_webhook_url === null ? true : undefined,
		);

		// form-a's owner points the form at a receiver of their own; the credential moves to form-b.
		const written = await formA('POST', '/api/settings', {
			contact_form_webhook_url: OWN_RECEIVER,
		});
		expect(written.status).toBe(200);
		const aSettings = await settings(formA);
		expect(aSettings.contact_form_webhook_url).toBe(OWN_RECEIVER);
		await editCredential('form', { tenantId: FORM_B });
		const edited = mints(ctx.server);

		await activate(WORKFLOWS.form);
		const urlOnB = await stack.waitFor('the registration on form-b', () => registeredUrl(formB), {
			timeoutMs: 60_000,
		});
		expect(urlOnB).toBe(urlOnA);
		expect(await settings(formA)).toEqual(aSettings);
		const secondId = await submit(FORM_B, 'to B');
		const second = await nthExecution(WORKFLOWS.form, 2, 'the submission to form-b');
		expect(triggerItem(second)).toMatchObject({ submission_id: secondId, tenant_id: FORM_B });
		await deactivate(WORKFLOWS.form);
		await stack.waitFor('form-b to be unregistered', async () =>
			(await settings(formB)).contact_form_webhook_url === null ? true : undefined,
		);
		expect(await settings(formA)).toEqual(aSettings);
		expect(endedExecutions(WORKFLOWS.form).map((execution) => execution.mode)).toEqual([
			'webhook',
			'webhook',
		]);

		const beforeEdit = difference(start, edited, [FORM_A, FORM_B]);
		const afterEdit = mintedSince(ctx.server, edited, [FORM_A, FORM_B]);
		ctx.counts['contact form, before the edit (publish, 1 submission, unpublish)'] = beforeEdit;
		ctx.counts['contact form, after the edit (publish, 1 submission, unpublish)'] = afterEdit;
		expect(beforeEdit[FORM_B]).toBe(0);
		expect(afterEdit[FORM_A]).toBe(0);
		expect(afterEdit[FORM_B]).toBeGreaterThan(0);
	});

	test('Site Management Trigger: after the edit its items name the new tenant, and the switch reports nothing', async () => {
		const watchA = ctx.tenants[WATCH_A].client;
		const watchB = ctx.tenants[WATCH_B].client;
		const triggerItems = (execution) => items(execution, 'Page changes');
		// A poll reads the site's sitemap with a token minted for the tenant it watches.
		const polls = (tenant, from = 0) =>
			requestsOf(ctx.nearSeen.slice(from), ctx.server, tenant).filter(({ url }) =>
				url.startsWith('/api/sitemap'),
			).length;
		const start = mints(ctx.server);
		const startSeen = ctx.nearSeen.length;

		await activate(WORKFLOWS.watch);
		// Activation polls once: it only learns where watch-a stands.
		await stack.waitFor('the first poll of watch-a', async () => polls(WATCH_A, startSeen) > 0, {
			timeoutMs: 60_000,
		});
		await sleep(1500);
		expect(
			(await watchA('POST', '/api/page', { name: 'A new', url: '/a-new', locale: 'en' })).status,
		).toBe(201);
		const first = await nthExecution(WORKFLOWS.watch, 1, 'the page published on watch-a');
		expect(triggerItems(first)).toEqual([
			expect.objectContaining({
				event: 'pagePublished',
				url: '/a-new',
				tenant_id: WATCH_A,
				site: ctx.server.url,
			}),
		]);

		await editCredential('watch', { tenantId: WATCH_B });
		const edited = mints(ctx.server);
		const editedSeen = ctx.nearSeen.length;
		const pollsOfABeforeEdit = polls(WATCH_A, startSeen);
		// Two polls of watch-b: the first learns where it stands, the second finds nothing new.
		await stack.waitFor('two polls of watch-b', async () => polls(WATCH_B, editedSeen) >= 2, {
			timeoutMs: 60_000,
			everyMs: 500,
		});
		await sleep(1000);
		// A poll already under way when the credential was saved may still have read watch-a.
		const pollsOfAAfterEdit = polls(WATCH_A, editedSeen);
		expect(pollsOfAAfterEdit).toBeLessThanOrEqual(1);
		expect(endedExecutions(WORKFLOWS.watch)).toHaveLength(1);

		expect(
			(await watchB('POST', '/api/page', { name: 'B new', url: '/b-new', locale: 'en' })).status,
		).toBe(201);
		const second = await nthExecution(WORKFLOWS.watch, 2, 'the page published on watch-b');
		expect(triggerItems(second)).toEqual([
			expect.objectContaining({
				event: 'pagePublished',
				url: '/b-new',
				tenant_id: WATCH_B,
				site: ctx.server.url,
			}),
		]);
		await deactivate(WORKFLOWS.watch);
		expect(endedExecutions(WORKFLOWS.watch)).toHaveLength(2);
		expect(polls(WATCH_A, editedSeen)).toBe(pollsOfAAfterEdit);

		const beforeEdit = difference(start, edited, [WATCH_A, WATCH_B]);
		const afterEdit = mintedSince(ctx.server, edited, [WATCH_A, WATCH_B]);
		ctx.counts['page trigger, before the edit'] = {
			...beforeEdit,
			[`polls of ${WATCH_A}`]: pollsOfABeforeEdit,
		};
		ctx.counts['page trigger, after the edit'] = {
			...afterEdit,
			[`polls of ${WATCH_A}`]: pollsOfAAfterEdit,
			[`polls of ${WATCH_B}`]: polls(WATCH_B, editedSeen),
		};
		expect(beforeEdit[WATCH_A]).toBeGreaterThan(0);
		expect(beforeEdit[WATCH_B]).toBe(0);
		expect(afterEdit[WATCH_A]).toBe(0);
		expect(afterEdit[WATCH_B]).toBeGreaterThan(0);
	});
});
