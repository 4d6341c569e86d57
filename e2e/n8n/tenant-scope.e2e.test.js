'use strict';
/**
 * Tenant scope in a real n8n (2.x by default; n8n 1.x with SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime),
 * issue 38: a request goes only where its credential and its item say.
 *
 * - Scope: one Tenant node per credential over the same items (victim, acme, client-a), each item
 *   naming its tenant: a One Tenant credential (acme) acts on acme only, a Listed Tenants credential
 *   (`client-*`) on client-a only; every other item fails on its own and lands nowhere.
 * - n8n's HTTP Request node with the Managed Tenant credential: on the Tenant Base URL it works; to
 *   another host it fails and that host receives no request (no token). After the tenant is renamed
 *   and a new tenant takes the old name, the token n8n stored is refused (it was issued for the old
 *   name), n8n mints again, and the request reaches the new tenant, not the renamed one.
 * - Forged deliveries: the published Contact Form Trigger of tenant form-site refuses (403, no
 *   execution) bodies naming another tenant, with and without submission_id, sent with the right
 *   secret; a real submission of form-site starts exactly one execution.
 *
 * Its own stack: a reference server (in memory, loopback) and one `n8n start`, which runs the
 * workflows as the editor does and publishes the trigger.
 */
const http = require('node:http');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const { restClient } = require('../../scripts/lib/rest');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('n8n tenant scope');

const N8N_1 = path.basename(runtime.RUNTIME_DIR) === 'n8n1-runtime';
const TENANT_NODE = 'n8n-nodes-site-management.siteTenant';
const FORM_TRIGGER_NODE = 'n8n-nodes-site-management.siteContactFormTrigger';
const [ACME, VICTIM, CLIENT, FORM] = ['scope-acme', 'scope-victim', 'client-a', 'form-site'];
const RENAMED = 'scope-acme-renamed';

const CREDENTIALS = {
	one: { id: 'e2eScopeOne00001', name: 'Managed (acme only)', type: 'siteManagedTenantApi' },
	listed: { id: 'e2eScopeListed01', name: 'Managed (client-*)', type: 'siteManagedTenantApi' },
	form: { id: 'e2eScopeForm0001', name: 'Managed (form site)', type: 'siteManagedTenantApi' },
};
const WORKFLOWS = { scope: 'e2eScopeItems001', http: 'e2eScopeHttp0001', form: 'e2eScopeForm0001' };

const ctx = {};

const credentialRef = (key) => ({
	credentials: {
		[CREDENTIALS[key].type]: { id: CREDENTIALS[key].id, name: CREDENTIALS[key].name },
	},
});

const node = (name, type, typeVersion, parameters, x, extra = {}) =>
	e2eStack.workflowNode({ name, type, typeVersion, parameters, position: [x, 0], ...extra });

const onFail = { onError: 'continueRegularOutput' };

/** Start -> Items -> One item each -> a Tenant node per credential, each item naming its tenant. */
function scopeWorkflow() {
	const items = [VICTIM, ACME, CLIENT].map((tenant) => ({ tenant, url: `/from-${tenant}` }));
	const create = (name, key, suffix) =>
		node(
			name,
			TENANT_NODE,
			1,
			{
				authentication: 'managedTenant',
				tenant: { __rl: true, mode: 'id', value: '={{ $json.tenant }}' },
				resource: 'page',
				operation: 'create',
				name: '={{ "Page " + $json.url }}',
				url: `={{ $json.url + "-${suffix}" }}`,
				locale: 'en',
				additionalFields: {},
			},
			600,
			{ ...onFail, ...credentialRef(key) },
		);
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
		node(
			'Items',
			'n8n-nodes-base.set',
			3.4,
			{ mode: 'raw', jsonOutput: JSON.stringify({ items }), options: {} },
			200,
		),
		node('One item each', 'n8n-nodes-base.splitOut', 1, { fieldToSplitOut: 'items' }, 400),
		create('Create (acme only)', 'one', 'one'),
		create('Create (client-*)', 'listed', 'listed'),
	];
	return e2eStack.workflowJson({
		id: WORKFLOWS.scope,
		name: 'tenant scope: items naming tenants',
		nodes,
		links: [
			['Start', 'Items'],
			['Items', 'One item each'],
			['One item each', 'Create (acme only)'],
			['One item each', 'Create (client-*)'],
		],
	});
}

/** The newest HTTP Request node version of the runtime that the bug report named (4.4; 1.x: 4.3). */
const HTTP_REQUEST_NEWER = N8N_1 ? 4.3 : 4.4;

/**
 * Start -> n8n's HTTP Request node with the Managed Tenant credential: to its site, elsewhere, and to
 * its site through a proxy (Options > Proxy: the capture server, which must receive nothing).
 */
function httpWorkflow() {
	const request = (name, url, { version = 4.2, options = {} } = {}) =>
		node(
			name,
			'n8n-nodes-base.httpRequest',
			version,
			{
				method: 'GET',
				url,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'siteManagedTenantApi',
				options,
			},
			220,
			{ ...onFail, ...credentialRef('one') },
		);
	const ownPages = `${ctx.server.url}/api/pages?per_page=100`;
	const viaProxy = { options: { proxy: ctx.captureUrl } };
	return e2eStack.workflowJson({
		id: WORKFLOWS.http,
		name: 'tenant scope: HTTP Request node',
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
			request('Own site', ownPages),
			request('Other host', `${ctx.captureUrl}/api/pages`),
			request('Through a proxy', ownPages, viaProxy),
			request('Through a proxy (newer)', ownPages, { ...viaProxy, version: HTTP_REQUEST_NEWER }),
		],
		links: [
			['Start', 'Own site'],
			['Start', 'Other host'],
			['Start', 'Through a proxy'],
			['Start', 'Through a proxy (newer)'],
		],
	});
}

function formWorkflow() {
	return e2eStack.workflowJson({
		id: WORKFLOWS.form,
		name: 'tenant scope: contact form',
		nodes: [
			node(
				'Contact form',
				FORM_TRIGGER_NODE,
				1,
				{
					registration: 'automatic',
					authentication: 'managedTenant',
					path: 'tenant-scope-form',
					ignoreRepeats: true,
					options: {},
				},
				0,
				{ webhookId: '5c0a5e1e-38a1-4d0e-8c38-0000000000a1', ...credentialRef('form') },
			),
			node('No Op', 'n8n-nodes-base.noOp', 1, {}, 220),
		],
		links: [['Contact form', 'No Op']],
	});
}

const execute = (workflowId) => e2eStack.executeOk(workflowId, { runner: ctx.runner, log: say });

/** The items a node put out, each as json (with `error` where it failed). */
const outputOf = (run, name) => n8nCommands.nodeItems(run, name);
/** An error item's error as text (the Tenant node's is a string, the HTTP Request node's an object). */
const errorText = (item) =>
	typeof item.error === 'string' ? item.error : JSON.stringify(item.error ?? null);

async function pageUrls(client) {
	const answer = await client('GET', '/api/pages?per_page=100');
	expect(answer.status).toBe(200);
	return answer.data.data.map((page) => page.url).sort();
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer({ webhookAllow: 'loopback' });
	ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
	ctx.tenants = {};
	for (const id of [ACME, VICTIM, CLIENT, FORM])
		ctx.tenants[id] = await e2eStack.addTenant(ctx.server, id);

	// Another host: records every request (it must receive none).
	ctx.captured = [];
	ctx.capture = http.createServer((request, response) => {
		request.resume();
		ctx.captured.push({ url: request.url, authorization: request.headers.authorization });
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end('{"data":[]}');
	});
	await new Promise((resolve) => ctx.capture.listen(0, '127.0.0.1', resolve));
	ctx.captureUrl = `http://127.0.0.1:${ctx.capture.address().port}`;

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-tenant-scope-'));
	const managed = (overrides) => ({
		adminBaseUrl: ctx.server.url,
		adminToken: ctx.server.adminToken,
		baseUrl: ctx.server.url,
		lifetime: 900,
		accessToken: '',
		...overrides,
	});
	const data = {
		one: managed({ tenantScope: 'one', tenantId: ACME }),
		listed: managed({ tenantScope: 'listed', allowedTenants: 'client-*', tenantId: '' }),
		form: managed({ tenantScope: 'one', tenantId: FORM }),
	};
	await e2eStack.importFixtures(ctx, {
		credentials: Object.entries(CREDENTIALS).map(([key, credential]) => ({
			...credential,
			data: data[key],
		})),
		workflows: [scopeWorkflow(), httpWorkflow(), formWorkflow()],
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'tenant-scope');
	say(`reference server ${ctx.server.url}, other host ${ctx.captureUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	if (ctx.capture?.listening) {
		ctx.capture.closeAllConnections();
		await new Promise((resolve) => ctx.capture.close(resolve));
	}
	await e2eStack.stopStack(ctx);
});

describe(`tenant scope in n8n ${N8N_1 ? '1.x' : '2.x'}`, () => {
	test("each item reaches its tenant only within the credential's scope; the rest fail and land nowhere", async () => {
		const run = await execute(WORKFLOWS.scope);
		const verdicts = (name) =>
			outputOf(run, name).map((item) =>
				item.error
					? errorText(item).replace(/^.*may not act on tenant "([^"]+)".*$/s, 'refused $1')
					: 'ok',
			);
		expect(verdicts('Create (acme only)')).toEqual([
			`refused ${VICTIM}`,
			'ok',
			`refused ${CLIENT}`,
		]);
		expect(verdicts('Create (client-*)')).toEqual([`refused ${VICTIM}`, `refused ${ACME}`, 'ok']);
		expect(await pageUrls(ctx.tenants[VICTIM].client)).toEqual([]);
		expect(await pageUrls(ctx.tenants[ACME].client)).toEqual([`/from-${ACME}-one`]);
		expect(await pageUrls(ctx.tenants[CLIENT].client)).toEqual([`/from-${CLIENT}-listed`]);
	});

	test("n8n's HTTP Request node: the managed token goes to the Tenant Base URL only, never through a proxy, and never to a renamed tenant", async () => {
		const first = await execute(WORKFLOWS.http);
		const own = outputOf(first, 'Own site');
		expect(own).toHaveLength(1);
		expect(own[0].error).toBeUndefined();
		expect(own[0].data.map((page) => page.url)).toEqual([`/from-${ACME}-one`]);
		const other = outputOf(first, 'Other host');
		expect(errorText(other[0])).toContain('sends its token only to its Tenant Base URL');
		for (const name of ['Through a proxy', 'Through a proxy (newer)'])
			expect(errorText(outputOf(first, name)[0])).toContain('this request goes through a proxy');
		expect(ctx.captured).toEqual([]);

		// The tenant is renamed and a new tenant takes its old name.
		expect((await ctx.admin('PUT', '/api/tenant', { old_id: ACME, id: RENAMED })).status).toBe(200);
		expect((await ctx.admin('POST', '/api/tenant', { id: ACME })).status).toBe(200);
		const second = await execute(WORKFLOWS.http);
		const again = outputOf(second, 'Own site');
		expect(again[0].error).toBeUndefined();
		// The new tenant of that name: no pages. The renamed one's page was not reached.
		expect(again[0].data).toEqual([]);
		expect(ctx.captured).toEqual([]);
	});

	test('the Contact Form Trigger refuses deliveries naming another tenant, with and without submission_id', async () => {
		ctx.n8n = await e2eStack.startN8nIn(ctx);
		ctx.rest = await restClient(ctx.n8nUrl, {
			email: 'owner@tenant-scope.example.com',
			firstName: 'E2E',
			lastName: 'Owner',
			password: `E2e-${Date.now().toString(36)}-Aa1`,
		});
		await ctx.rest.activateWorkflow(WORKFLOWS.form);
		const site = ctx.tenants[FORM].client;
		const settings = await stack.waitFor(
			'the registration on form-site',
			async () => {
				const current = (await site('GET', '/api/settings')).data.settings;
				return String(current.contact_form_webhook_url ?? '').startsWith(ctx.n8nUrl)
					? current
					: undefined;
			},
			{ timeoutMs: 60_000 },
		);
		const url = settings.contact_form_webhook_url;
		const secret = settings.contact_form_webhook_headers['X-Site-Webhook-Secret'];
		const post = async (body) =>
			await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'X-Site-Webhook-Secret': secret },
				body: JSON.stringify(body),
			});
		const forged = { tenant_id: VICTIM, form: 'contact', submitted_at: 'now', fields: { a: 1 } };
		// n8n saves the registration (static data) a moment after the site has the secret: until then
		// the trigger answers 503 not_ready (issue 42).
		const first = await stack.waitFor(
			'the published trigger to know its secret',
			async () => {
				const answer = await post(forged);
				return answer.status === 503 ? undefined : answer;
			},
			{ timeoutMs: 30_000 },
		);
		expect(first.status).toBe(403);
		expect((await post({ ...forged, submission_id: 'forged-1' })).status).toBe(403);
		expect(stack.executionCount(ctx.userFolder, WORKFLOWS.form)).toBe(0);

		const submitted = await stack.siteClient(ctx.server.url)('POST', `/forms/${FORM}/contact`, {
			message: 'genuine',
		});
		expect(submitted.status).toBe(202);
		await stack.waitFor(
			'the genuine submission to start the workflow',
			async () => (stack.executionCount(ctx.userFolder, WORKFLOWS.form) >= 1 ? true : undefined),
			{ timeoutMs: 60_000 },
		);
		expect(stack.executionCount(ctx.userFolder, WORKFLOWS.form)).toBe(1);
		await ctx.rest.call('POST', `/workflows/${WORKFLOWS.form}/deactivate`, {});
	});
});
