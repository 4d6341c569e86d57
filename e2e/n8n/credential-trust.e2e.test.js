'use strict';
/**
 * In a real n8n (tools/n8n-runtime/, n8n 2.x): tokens never leave the credential.
 *
 * - A loopback site answers every request with a 307 to `localhost:<other port>`: the Tenant node's
 *   Page > Get Many, Notification > Send and Custom API Call, the Admin node and the Managed Tenant
 *   credential's mint fail with an error naming both addresses, and so do the credential tests of
 *   n8n's Test button; the other port receives no request at all (so no token).
 * - A Custom API Call path with tabs (`/api/.\t./.\t./.\t./x`) is refused; nothing is sent.
 * - 60 Page Creates at the node's default concurrency mint exactly one token, and the next
 *   execution mints exactly one more (a run mints its own and stores none in n8n's credential),
 *   counted on the reference server.
 *
 * Its own stack (reference server in memory, n8n user folder in a temporary directory); workflows
 * run in one `n8n start` as the editor runs them, and the credential tests go through its REST API.
 */
const http = require('node:http');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');
const runData = require('./lib/run-data');

const say = e2eStack.progressLog('n8n trust');

const PAGES = 60;
const MINT_TENANT = 'mint-once';
const REDIRECT_TENANT = 'redirected';
const TENANT_NODE = 'n8n-nodes-site-management.siteTenant';
const ADMIN_NODE = 'n8n-nodes-site-management.siteAdmin';
const CREDENTIALS = {
	managed: { id: 'e2eTrustManaged1', name: 'Managed (mint once)', type: 'siteManagedTenantApi' },
	tenantRedirect: { id: 'e2eTrustTenantR1', name: 'Tenant (redirects)', type: 'siteTenantApi' },
	managedRedirect: {
		id: 'e2eTrustManagedR',
		name: 'Managed (admin redirects)',
		type: 'siteManagedTenantApi',
	},
	adminRedirect: { id: 'e2eTrustAdminR01', name: 'Admin (redirects)', type: 'siteAdminApi' },
	tenantTrap: { id: 'e2eTrustTenantT1', name: 'Tenant (path trap)', type: 'siteTenantApi' },
};
const WORKFLOWS = { pages: 'e2eTrustPages001', redirects: 'e2eTrustRedirect' };

const ctx = {};
/**
 * n8n 1.x keeps neither a thrown answer's headers (the Location) nor the answer for the credential
 * tester's status rules, and reads `{ ignore, except }` as `true`: its messages are less precise.
 */
const N8N_1 = path.basename(runtime.RUNTIME_DIR) === 'n8n1-runtime';

/** Starts a server on a loopback address; resolves to its port. */
function listen(server, port, host) {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve(server.address().port));
	});
}

/** Records every request it receives (method, url, Authorization) and answers 200 with a token. */
function recorder(received) {
	return http.createServer((request, response) => {
		request.resume();
		received.push({
			method: request.method,
			url: request.url,
			authorization: request.headers.authorization,
		});
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify({ token: 'stt_from_the_other_host_000000000000', data: [] }));
	});
}

async function closeServer(server) {
	if (!server?.listening) return;
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
}

/** A node of the test workflows. */
const node = (name, type, typeVersion, parameters, credentials, x, extra = {}) =>
	e2eStack.workflowNode({
		name,
		type,
		typeVersion,
		parameters,
		credentials,
		position: [x, 0],
		...extra,
	});

const credentialRef = (key) => e2eStack.credentialRef(CREDENTIALS[key]);

/** Start -> Set (60 urls) -> Split Out -> Page > Create (managed credential, default options). */
function pagesWorkflow() {
	const urls = Array.from({ length: PAGES }, (_, i) => `/p${i}`);
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, undefined, 0),
		node(
			'Sixty urls',
			'n8n-nodes-base.set',
			3.4,
			{ mode: 'raw', jsonOutput: JSON.stringify({ urls }), options: {} },
			undefined,
			220,
		),
		node(
			'One item per url',
			'n8n-nodes-base.splitOut',
			1,
			{ fieldToSplitOut: 'urls', options: {} },
			undefined,
			440,
		),
		node(
			'Create page',
			TENANT_NODE,
			1,
			{
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: '={{ "Page " + $json.urls }}',
				url: '={{ $json.urls + "-" + $execution.id }}',
				locale: 'en',
				options: {},
			},
			credentialRef('managed'),
			660,
		),
	];
	const chain = ['Start', 'Sixty urls', 'One item per url', 'Create page'];
	return workflow(WORKFLOWS.pages, 'E2E: 60 creates, one mint per run', nodes, chain);
}

/** Start -> each operation that must not follow the redirect, all continuing on fail. */
function redirectsWorkflow() {
	const onFail = { onError: 'continueRegularOutput' };
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, undefined, 0),
		node(
			'Get many pages',
			TENANT_NODE,
			1,
			{ resource: 'page', operation: 'getAll', returnAll: true, filters: {}, options: {} },
			credentialRef('tenantRedirect'),
			220,
			onFail,
		),
		node(
			'Send notification',
			TENANT_NODE,
			1,
			{
				resource: 'notification',
				operation: 'send',
				notificationId: 'private',
				message: 'not for other hosts',
				options: {},
			},
			credentialRef('tenantRedirect'),
			220,
			onFail,
		),
		node(
			'Custom call',
			TENANT_NODE,
			1,
			{
				resource: 'customApiCall',
				operation: 'call',
				method: 'POST',
				path: '/api/chatbot',
				body: '{"question":"private"}',
			},
			credentialRef('tenantRedirect'),
			220,
			onFail,
		),
		node(
			'Create page (managed)',
			TENANT_NODE,
			1,
			{
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: 'Redirected',
				url: '/redirected',
				locale: 'en',
				options: {},
			},
			credentialRef('managedRedirect'),
			220,
			onFail,
		),
		node(
			'Create tenant',
			ADMIN_NODE,
			1,
			{ resource: 'tenant', operation: 'create', id: 'never-created' },
			credentialRef('adminRedirect'),
			220,
			onFail,
		),
		node(
			'Custom call with tabs',
			TENANT_NODE,
			1,
			{
				resource: 'customApiCall',
				operation: 'call',
				method: 'GET',
				path: '/api/.\t./.\t./.\t./x',
			},
			credentialRef('tenantTrap'),
			220,
			onFail,
		),
	];
	const workflowData = workflow(WORKFLOWS.redirects, 'E2E: redirects and paths', nodes, []);
	workflowData.connections.Start = {
		main: [nodes.slice(1).map((target) => ({ node: target.name, type: 'main', index: 0 }))],
	};
	return workflowData;
}

const workflow = (id, name, nodes, chain) =>
	e2eStack.workflowJson({ id, name, nodes, links: e2eStack.chainLinks(chain) });

const execute = (workflowId) => e2eStack.executeOk(workflowId, { runner: ctx.runner, log: say });

/** Tokens the reference server issued for a tenant so far. */
const tokenCount = (tenantId) => runData.tokenCount(ctx.server, tenantId);

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
	expect((await ctx.admin('POST', '/api/tenant', { id: MINT_TENANT })).status).toBe(200);
	ctx.tenantToken = (await e2eStack.addTenant(ctx.server, REDIRECT_TENANT)).token;
	ctx.mintTokensBefore = tokenCount(MINT_TENANT);

	// The redirecting site and the other port; the trap takes the path check's would-be request.
	ctx.received = [];
	ctx.target4 = recorder(ctx.received);
	const targetPort = await listen(ctx.target4, 0, '127.0.0.1');
	ctx.target6 = recorder(ctx.received);
	await listen(ctx.target6, targetPort, '::1').catch(() => undefined);
	ctx.targetUrl = `http://localhost:${targetPort}`;
	ctx.redirector = http.createServer((request, response) => {
		request.resume();
		response.writeHead(307, { location: `${ctx.targetUrl}${request.url}` });
		response.end();
	});
	ctx.redirectUrl = `http://127.0.0.1:${await listen(ctx.redirector, 0, '127.0.0.1')}`;
	ctx.trapped = [];
	ctx.trap = recorder(ctx.trapped);
	ctx.trapUrl = `http://127.0.0.1:${await listen(ctx.trap, 0, '127.0.0.1')}`;
	say(`reference server ${ctx.server.url}; redirects ${ctx.redirectUrl} -> ${ctx.targetUrl}`);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-trust-'));
	const managedData = (overrides) => ({
		adminBaseUrl: ctx.server.url,
		adminToken: ctx.server.adminToken,
		tenantId: MINT_TENANT,
		baseUrl: ctx.server.url,
		lifetime: 900,
		accessToken: '',
		...overrides,
	});
	ctx.credentialData = {
		managed: managedData({}),
		tenantRedirect: { baseUrl: ctx.redirectUrl, token: ctx.tenantToken },
		managedRedirect: managedData({ adminBaseUrl: ctx.redirectUrl, tenantId: REDIRECT_TENANT }),
		adminRedirect: { baseUrl: ctx.redirectUrl, token: ctx.server.adminToken },
		tenantTrap: { baseUrl: `${ctx.trapUrl}/site`, token: ctx.tenantToken },
	};
	await e2eStack.importFixtures(ctx, {
		credentials: Object.entries(CREDENTIALS).map(([key, credential]) => ({
			...credential,
			data: ctx.credentialData[key],
		})),
		workflows: [pagesWorkflow(), redirectsWorkflow()],
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'trust');
	say(`credentials and workflows imported; n8n ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await Promise.all(
		[ctx.redirector, ctx.target4, ctx.target6, ctx.trap].map((server) => closeServer(server)),
	);
	await e2eStack.stopStack(ctx);
});

/** The one item a continue-on-fail node put out, with its error. */
function failedItem(run, name) {
	const items = n8nCommands.nodeItems(run, name);
	expect(items).toHaveLength(1);
	return items[0];
}

describe('tokens stay in their credentials, in a real n8n', () => {
	test(`${PAGES} Page Creates at the default concurrency mint exactly 1 token; the next execution mints exactly 1 more`, async () => {
		const first = await execute(WORKFLOWS.pages);
		expect(n8nCommands.nodeItems(first, 'Create page')).toHaveLength(PAGES);
		const minted = tokenCount(MINT_TENANT) - ctx.mintTokensBefore;
		say(`first execution: ${minted} token(s) minted for ${PAGES} creates`);
		expect(minted).toBe(1);

		// Its own token, not one kept from the first run.
		const second = await execute(WORKFLOWS.pages);
		expect(n8nCommands.nodeItems(second, 'Create page')).toHaveLength(PAGES);
		expect(tokenCount(MINT_TENANT) - ctx.mintTokensBefore).toBe(2);
		const pages = await stack.siteClient(
			ctx.server.url,
			(await ctx.admin('POST', '/api/tenant/token', { id: MINT_TENANT })).data.token,
		)('GET', '/api/pages?per_page=1');
		expect(pages.data.meta.total).toBe(2 * PAGES);
	});

	test('no operation follows a redirect: each error names both addresses and the other port sees no request', async () => {
		const run = await execute(WORKFLOWS.redirects);
		const expectRedirect = (name, apiPath) => {
			const { error } = failedItem(run, name);
			expect(error).toContain(`${ctx.redirectUrl}${apiPath} answered with a redirect (HTTP 307)`);
			// Every answer comes back whole (the transport asks n8n for it), so 1.x names it too.
			expect(error).toContain(`to ${ctx.targetUrl}${apiPath}`);
		};
		expectRedirect('Get many pages', '/api/pages');
		expectRedirect('Send notification', '/api/notifications');
		expectRedirect('Custom call', '/api/chatbot');
		expectRedirect('Create tenant', '/api/tenant');
		// The mint: the admin token stays home, and no token from the other host is used.
		const mint = failedItem(run, 'Create page (managed)').error;
		expect(mint).toContain('Could not get a tenant token');
		// The mint reads the answer itself (it does not throw), so every n8n names the Location.
		expect(mint).toContain(`to ${ctx.targetUrl}/api/tenant/token`);
		expect(
			(
				await stack.siteClient(ctx.server.url, ctx.tenantToken)(
					'GET',
					'/api/pages?url=%2Fredirected',
				)
			).data.data,
		).toEqual([]);

		expect(failedItem(run, 'Custom call with tabs').error).toBe(
			'Path must not contain control characters (tabs, newlines...)',
		);
		expect(ctx.trapped).toEqual([]);
		expect(ctx.received).toEqual([]);
		// Nothing n8n stored or printed carries a token.
		const text = JSON.stringify(run);
		for (const secret of [ctx.tenantToken, ctx.server.adminToken])
			expect(text).not.toContain(secret);
	});

	test("credential tests (the editor's Test button) do not follow a redirect", async () => {
		ctx.n8n = await e2eStack.startN8nIn(ctx);
		const cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'trust');
		const testCredential = async (key) =>
			await stack.testCredentialInN8n(ctx.n8nUrl, cookie, {
				...CREDENTIALS[key],
				id: e2eStack.credentialIdOf(ctx, CREDENTIALS[key].id),
				data: ctx.credentialData[key],
			});
		const tenant = await testCredential('tenantRedirect');
		say(`credential test tenantRedirect: ${JSON.stringify(tenant)}`);
		// n8n 1.x's tester loses the answer behind the error, so no status rule applies: its own text.
		expect(tenant).toEqual({
			status: 'Error',
			message: N8N_1
				? 'Request failed with status code 307'
				: expect.stringContaining('answered with a redirect (HTTP 307)'),
		});
		const admin = await testCredential('adminRedirect');
		say(`credential test adminRedirect: ${JSON.stringify(admin)}`);
		// n8n 1.x reads the test's `{ ignore, except }` as `true`: the redirect's empty answer then fails
		// the body rules ("not the service") instead of the redirect rule. Either way nothing follows.
		expect(admin).toEqual({
			status: 'Error',
			message: N8N_1
				? expect.stringContaining('No Site Management Admin API')
				: expect.stringContaining('answered with a redirect (HTTP 307)'),
		});
		// The managed credential mints first: its mint meets the redirect.
		const managed = await testCredential('managedRedirect');
		say(`credential test managedRedirect: ${JSON.stringify(managed)}`);
		expect(managed.status).toBe('Error');
		expect(managed.message).toContain('redirect (HTTP 307)');
		expect(ctx.received).toEqual([]);
	});
});
