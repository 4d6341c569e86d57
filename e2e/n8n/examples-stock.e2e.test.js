'use strict';
/**
 * Every workflow in examples/, as a user gets it, in an n8n with n8n's defaults
 * (e2e/n8n/lib/stock-stack.js): no `N8N_BLOCK_ENV_ACCESS_IN_NODE=false` or any other setting a
 * user's n8n would not have; only credentials are added (the site's, and the OpenAI one pointed at
 * the stand-in model). The folder is read, so a new example is covered as it lands: each imports,
 * and each one a person starts by hand (a Manual Trigger) runs, twice, as the README says they can.
 * An example started by a trigger (a form, a poll, an MCP client) is imported, not run here; its own
 * test serves it.
 */
const fs = require('node:fs');
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const { startAiStandIn } = require('../../scripts/lib/ai-stand-in');
const { importSiteCredentials, progressLog, stopStack } = require('./lib/stack');
const { exampleFiles, startSiteAndFolder } = require('./lib/stock-stack');

const say = progressLog('examples');

const AI_API_KEY = 'ai-stand-in-key-stock';
const EXAMPLES = exampleFiles();
const runnable = ({ workflow }) =>
	workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger');
const ctx = {};

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.site = await startSiteAndFolder('site-n8n-stock-');
	// As `npm start` does: the acme tenant exists, empty, before any example runs (the every-site
	// example names it; the onboarding example updates it and creates its other sites).
	await stack.ensureTenant(ctx.site.server.url, ctx.site.server.adminToken, {
		id: stack.ONBOARDING_TENANT,
	});
	ctx.ai = await startAiStandIn({ apiKey: AI_API_KEY });
	await importSiteCredentials(ctx.site, {
		aiUrl: ctx.ai.baseUrl,
		aiApiKey: AI_API_KEY,
		mcpToken: 'mcp_stock-examples-token',
	});
	await stack.importWorkflows(
		ctx.site.env,
		ctx.site.userFolder,
		EXAMPLES.map(({ file }) => file),
	);
	say(`${EXAMPLES.length} examples imported into ${ctx.site.userFolder}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await ctx.ai?.close();
	await stopStack(ctx.site);
});

test('the n8n runs with n8n defaults: no setting that unblocks $env, tools or packages', () => {
	for (const key of [
		'N8N_BLOCK_ENV_ACCESS_IN_NODE',
		'N8N_COMMUNITY_PACKAGES_ALLOW_TOOL_USAGE',
		'N8N_UNVERIFIED_PACKAGES_ENABLED',
		'N8N_COMMUNITY_PACKAGES_ENABLED',
		'NODES_EXCLUDE',
	])
		expect(ctx.site.env[key]).toBeUndefined();
});

test('no example reads $env or $vars, and each has the fixed ID it is imported and run by', () => {
	expect(EXAMPLES.length).toBeGreaterThan(0);
	for (const { file, workflow } of EXAMPLES) {
		const text = fs.readFileSync(file, 'utf8');
		expect({ file, env: /\$env\b|\$vars\b/.test(text) }).toEqual({ file, env: false });
		expect({ file, id: workflow.id }).toEqual({ file, id: expect.stringMatching(/^\w{16}$/) });
	}
});

test('every example is in n8n after the import, with its nodes and credentials', async () => {
	const out = path.join(ctx.site.userFolder, 'exported');
	await n8nCommands.n8nCliOk(['export:workflow', '--all', '--separate', `--output=${out}`], {
		env: ctx.site.env,
	});
	const exported = new Map(
		fs
			.readdirSync(out)
			.map((name) => JSON.parse(fs.readFileSync(path.join(out, name), 'utf8')))
			.map((workflow) => [workflow.id, workflow]),
	);
	const credentialIds = new Set(
		Object.values(stack.CREDENTIALS).map((credential) => credential.id),
	);
	for (const { file, workflow } of EXAMPLES) {
		const stored = exported.get(workflow.id);
		expect({ file, name: stored?.name }).toEqual({ file, name: workflow.name });
		expect(stored.nodes.map((node) => node.name).sort()).toEqual(
			workflow.nodes.map((node) => node.name).sort(),
		);
		// Every credential an example names is one a user picks (and this test imported).
		for (const node of workflow.nodes)
			for (const credential of Object.values(node.credentials ?? {}))
				expect({ file, node: node.name, known: credentialIds.has(credential.id) }).toEqual({
					file,
					node: node.name,
					known: true,
				});
	}
});

const RUNNABLE = EXAMPLES.filter(runnable).map(({ file, workflow }) => [
	path.basename(file),
	workflow,
]);

test.each(RUNNABLE)('%s runs to the end, and again', async (name, workflow) => {
	for (const attempt of ['first', 'second']) {
		say(`${name}: ${attempt} run`);
		const result = await n8nCommands.executeWorkflow(workflow.id, { env: ctx.site.env });
		const error = result.run?.data?.resultData?.error;
		expect({
			name,
			attempt,
			failed: result.failed,
			error: error ? `${error.node?.name ?? ''}: ${error.message}` : undefined,
			output: result.failed ? `${result.stdout.slice(-1500)}\n${result.stderr.slice(-1500)}` : '',
		}).toEqual({ name, attempt, failed: false, error: undefined, output: '' });
		ctx[`${workflow.id}:${attempt}`] = result.run;
	}
});

/** The list an example's "Sites" node holds (its raw JSON), as the example gives it. */
function sitesOf(example) {
	const { workflow } = EXAMPLES.find(({ file }) => path.basename(file) === example.file);
	return JSON.parse(workflow.nodes.find((node) => node.name === 'Sites').parameters.jsonOutput)
		.sites;
}

/** A siteClient for a tenant, with a token the test issues through the Admin API. */
async function tenantClient(tenant) {
	const issued = await ctx.site.admin('POST', '/api/tenant/token', { id: tenant, expires_in: 600 });
	expect({ tenant, status: issued.status }).toEqual({ tenant, status: 200 });
	return stack.siteClient(ctx.site.server.url, issued.data.token);
}

test('the onboarding example, run twice, sets up every site of its list once, with one credential', async () => {
	const { id } = stack.WORKFLOWS.onboarding;
	const first = ctx[`${id}:first`];
	const second = ctx[`${id}:second`];
	const sites = sitesOf(stack.WORKFLOWS.onboarding);
	expect(sites.length).toBeGreaterThanOrEqual(2);
	const tenantsOf = (run) =>
		n8nCommands
			.nodeItems(run, 'Create or update tenant')
			.map(({ id: tenant, fqdn, result }) => ({ tenant, fqdn, result }));

	// The first run creates the sites (acme existed, as `npm start` leaves it: its domain is set) and
	// every page of each; the second creates nothing and changes no page.
	expect(tenantsOf(first)).toEqual(
		sites.map(({ tenant, fqdn }) => ({
			tenant,
			fqdn,
			result: tenant === stack.ONBOARDING_TENANT ? 'updated' : 'created',
		})),
	);
	const allPages = sites.flatMap((site) => site.pages);
	expect(n8nCommands.nodeItems(first, 'Create page').map((page) => page.url)).toEqual(
		allPages.map((page) => page.url),
	);
	const contentSet = n8nCommands.nodeItems(first, 'Set page content');
	expect(contentSet).toHaveLength(allPages.length);

	expect(tenantsOf(second)).toEqual(
		sites.map(({ tenant, fqdn }) => ({ tenant, fqdn, result: 'updated' })),
	);
	expect(n8nCommands.nodeItems(second, 'New pages only')).toEqual([]);
	expect(second.data.resultData.runData['Create page']).toBeUndefined();
	expect(second.data.resultData.runData['Set page content']).toBeUndefined();
	// The second run read the pages of every site.
	expect(
		n8nCommands
			.nodeItems(second, 'Existing pages by site')
			.map(({ tenant, url }) => `${tenant} ${url}`)
			.sort(),
	).toEqual(
		sites.flatMap(({ tenant, pages }) => pages.map(({ url }) => `${tenant} ${url}`)).sort(),
	);

	// What the server holds: the tenants with their domains, and on each site its pages, once, with
	// their content as the first run set it.
	const tenants = (await ctx.site.admin('GET', '/api/tenants?per_page=100')).data.data;
	for (const { tenant, fqdn } of sites)
		expect(tenants.find((entry) => entry.id === tenant)).toMatchObject({ id: tenant, fqdn });
	let contentIndex = 0;
	for (const { tenant, pages } of sites) {
		const client = await tenantClient(tenant);
		const stored = (await client('GET', '/api/pages?per_page=100')).data.data;
		expect({ tenant, urls: stored.map((page) => page.url).sort() }).toEqual({
			tenant,
			urls: pages.map((page) => page.url).sort(),
		});
		for (const page of pages) {
			const onServer = stored.find((entry) => entry.url === page.url);
			expect({ tenant, page: onServer }).toMatchObject({
				tenant,
				page: {
					name: page.name,
					locale: page.locale,
					meta_title: page.meta_title,
					draft: false,
					templates: page.templates,
					// Untouched since the first run set its content.
					updated_at: contentSet[contentIndex].updated_at,
				},
			});
			contentIndex += 1;
		}
	}
});

test('the every-site example, run twice, leaves its setting and one notification on each site of its list', async () => {
	const { id } = stack.WORKFLOWS.everySite;
	const sites = sitesOf(stack.WORKFLOWS.everySite);
	expect(sites.length).toBeGreaterThanOrEqual(2);
	for (const attempt of ['first', 'second']) {
		const run = ctx[`${id}:${attempt}`];
		expect(
			n8nCommands.nodeItems(run, 'Set analytics code').map((settings) => settings.google_code),
		).toEqual(sites.map((site) => site.googleCode));
		expect(
			n8nCommands
				.nodeItems(run, 'Tell the site owner')
				.map(({ id: notification, status }) => ({ notification, status })),
		).toEqual(sites.map(() => ({ notification: 'analytics-code', status: 'info' })));
	}

	// On the server, site by site: the setting, and the notification once (the second run replaced it).
	for (const { tenant, googleCode } of sites) {
		const client = await tenantClient(tenant);
		expect({
			tenant,
			settings: (await client('GET', '/api/settings')).data.settings,
		}).toMatchObject({ tenant, settings: { google_code: googleCode } });
		const notifications = (await client('GET', '/api/notifications')).data.data.filter(
			(notification) => notification.id === 'analytics-code',
		);
		expect({ tenant, notifications }).toMatchObject({
			tenant,
			notifications: [{ status: 'info', message: expect.stringContaining(googleCode) }],
		});
	}
});
