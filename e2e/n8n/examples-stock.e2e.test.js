'use strict';
/**
 * Every workflow in examples/, as a user gets it, in an n8n with n8n's defaults
 * (e2e/n8n/lib/stock-stack.js): no `N8N_BLOCK_ENV_ACCESS_IN_NODE=false` or any other setting a
 * user's n8n would not have; only credentials are added (the site's, and the OpenAI one pointed at
 * the stand-in model). The folder is read, so a new example is covered as it lands: each imports
 * (through n8n's REST API, as the editor's import), and each one a person starts by hand (a Manual
 * Trigger) runs, twice, as the README says they can, as the editor runs it. One that waits for a
 * person (a Wait node: the AI content chain's approval) is approved or rejected by following the
 * links it leaves the site owner. One `n8n start` serves the file. An example started by a trigger (a form, a poll, an MCP client) is imported, not run here;
 * its own test serves it.
 */
const fs = require('node:fs');
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const { startAiStandIn } = require('../../scripts/lib/ai-stand-in');
const { restClient } = require('../../scripts/lib/rest');
const {
	createWorkflows,
	importSiteCredentials,
	progressLog,
	restRunner,
	startN8nIn,
	stopStack,
} = require('./lib/stack');
const { ABOUT_US, exampleFiles, startSiteAndFolder } = require('./lib/stock-stack');
const runtime = require('../../scripts/lib/runtime');
const { startMailSink } = require('../../scripts/lib/mail-sink');
const { confirmLink, decideOnSite, followLink, runToSiteApproval } = require('./lib/approval');

const say = progressLog('examples');

const AI_API_KEY = 'ai-stand-in-key-stock';
const EXAMPLES = exampleFiles();
const startedByHand = ({ workflow }) =>
	workflow.nodes.some((node) => node.type === 'n8n-nodes-base.manualTrigger');
// A Wait node (the fleet rollout's approval), Send and Wait for Approval (the chain's) or n8n's
// human review of an agent's tool calls (…HitlTool).
const waitsForAPerson = ({ workflow }) =>
	workflow.nodes.some(
		(node) =>
			node.type === 'n8n-nodes-base.wait' ||
			node.type.endsWith('HitlTool') ||
			node.parameters?.operation === 'sendAndWait',
	);
const runnable = (example) => startedByHand(example) && !waitsForAPerson(example);
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
	// Where the agent example's reviews of tool calls are mailed (its SMTP credential points here).
	ctx.mail = await startMailSink();
	await importSiteCredentials(ctx.site, {
		aiUrl: ctx.ai.baseUrl,
		aiApiKey: AI_API_KEY,
		mcpToken: 'mcp_stock-examples-token',
		mailPort: ctx.mail.port,
	});
	await createWorkflows(
		ctx.site,
		EXAMPLES.map(({ workflow }) => workflow),
	);
	ctx.runner = await restRunner(ctx.site, 'examples');
	say(`${EXAMPLES.length} examples imported into ${ctx.site.userFolder}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await ctx.ai?.close();
	await ctx.mail?.close();
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
	const exported = new Map();
	for (const { workflow } of EXAMPLES)
		exported.set(workflow.id, await ctx.runner.rest.call('GET', `/workflows/${workflow.id}`));
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
		const result = await ctx.runner.execute(workflow.id);
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

	// Each site has its domain already: Create or Update reports it unchanged and sends nothing.
	expect(tenantsOf(second)).toEqual(
		sites.map(({ tenant, fqdn }) => ({ tenant, fqdn, result: 'unchanged' })),
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

/** `n8n start` on the stack's folder and a REST client for it: once, for the describes that need it. */
async function startRunningN8n() {
	if (ctx.rest) return;
	await startN8nIn(ctx.site);
	ctx.rest = await restClient(ctx.site.n8nUrl, {
		email: 'owner@examples.example.com',
		firstName: 'Stock',
		lastName: 'Owner',
		password: `Stock-${Date.now()}-owner`,
	});
}

/** The about page as the stack starts it, without a banner (an earlier run may have set one). */
const resetAboutUs = () => ctx.site.demo('PUT', '/api/content', { ...ABOUT_US, banner: null });
const aboutUs = async () => (await ctx.site.demo('GET', '/api/pages?url=%2Fabout-us')).data.data[0];
/** The demo site's notification with this id, if any. */
const notificationOf = async (id) =>
	(await ctx.site.demo('GET', '/api/notifications')).data.data.find((entry) => entry.id === id);

describe('the AI content chain in a running n8n: nothing is written before a person approves', () => {
	const CHAIN = stack.WORKFLOWS.aiChain.id;
	const notification = () => notificationOf('ai-content-/about-us');

	beforeAll(startRunningN8n, 300000);

	test('the chain is among the examples a person starts and waits for; its links resume it', async () => {
		expect(
			EXAMPLES.filter((example) => waitsForAPerson(example) && startedByHand(example))
				.map(({ workflow }) => workflow.id)
				.sort(),
		).toEqual([CHAIN, stack.WORKFLOWS.aiAgent.id, stack.WORKFLOWS.fleetRollout.id].sort());
	});

	test('approved: it waits with the page unchanged; the approve link asks to confirm, and confirming applies the proposal', async () => {
		await resetAboutUs();
		const before = await aboutUs();
		const waiting = await runToSiteApproval(ctx.rest, CHAIN, notification);

		// The request the site owner sees in the site's notifications: what would change, and two
		// links to n8n's signed resume URL.
		expect(waiting.request).toMatchObject({ status: 'warning' });
		expect(waiting.request.message).toMatch(
			/^An AI proposal for \/about-us waits for your approval: 2 content blocks, new banner\.\n\nApprove: /,
		);
		for (const [decision, approved] of [
			['approve', 'true'],
			['reject', 'false'],
		]) {
			const url = new URL(waiting.links[decision]);
			expect({ decision, origin: url.origin, waiting: url.pathname }).toEqual({
				decision,
				origin: ctx.site.n8nUrl,
				waiting: expect.stringMatching(new RegExp(`^/webhook-waiting/${waiting.id}(/|$)`)),
			});
			expect(url.searchParams.get('approved')).toBe(approved);
		}
		// Opening the link decides nothing: a page with one button.
		const opened = await followLink(waiting.links.approve);
		expect(opened).toMatchObject({ status: 200, text: expect.stringContaining('Approve?') });
		expect((await ctx.rest.waitForExecution(waiting.id, { until: ['waiting'] })).status).toBe(
			'waiting',
		);
		expect(await aboutUs()).toEqual(before);

		const ended = await decideOnSite(ctx.rest, waiting, 'approve');
		expect(ended.status).toBe('success');
		const proposal = JSON.parse(
			/```json\n([\s\S]*?)```/.exec(n8nCommands.nodeItems(ended.run, 'Propose content')[0].text)[1],
		);
		// Get Page Context's version (the updated_at, sealed), given back by the model.
		expect(proposal.version.startsWith(`${before.updated_at}~`)).toBe(true);
		const page = await aboutUs();
		expect({ templates: page.templates, banner: page.banner }).toEqual({
			templates: proposal.templates,
			banner: proposal.banner,
		});
		expect(await notification()).toMatchObject({
			status: 'success',
			message:
				'The AI proposal for /about-us was approved and applied: 2 content blocks, new banner.',
		});
	});

	test('reject: nothing changes, and the site owner reads that it was rejected', async () => {
		await resetAboutUs();
		const before = await aboutUs();
		const waiting = await runToSiteApproval(ctx.rest, CHAIN, notification);
		const ended = await decideOnSite(ctx.rest, waiting, 'reject');
		expect(ended.status).toBe('success');
		expect(ended.run.data.resultData.runData['Apply proposal']).toBeUndefined();
		expect(await aboutUs()).toEqual(before);
		expect(await notification()).toMatchObject({
			status: 'info',
			message: 'The AI proposal for /about-us was rejected: nothing was changed.',
		});
	});

	// n8n 2.x checks the resume URL's signature, so the cut link is refused and the run still waits;
	// n8n 1.x does not, and a link without a decision declines. Either way nothing is approved.
	test('a link cut short (its decision gone) never approves', async () => {
		await resetAboutUs();
		const before = await aboutUs();
		const waiting = await runToSiteApproval(ctx.rest, CHAIN, notification);
		const cut = new URL(waiting.links.approve);
		cut.searchParams.delete('approved');
		const answer = await confirmLink(cut.href);
		const ended =
			answer.status === 200
				? await ctx.rest.waitForExecution(waiting.id)
				: await decideOnSite(ctx.rest, waiting, 'reject');
		expect(answer.status === 200).toBe(!runtime.RUNTIME.checksResumeSignatures);
		expect(ended.status).toBe('success');
		expect(ended.run.data.resultData.runData['Apply proposal']).toBeUndefined();
		expect(await aboutUs()).toEqual(before);
	});

	test('the page edited while the proposal waited: the approval does not overwrite the edit', async () => {
		await resetAboutUs();
		const waiting = await runToSiteApproval(ctx.rest, CHAIN, notification);
		const edit = [{ type: 'text', body: 'Edited by a person while the proposal waited.' }];
		const edited = (
			await ctx.site.demo('PUT', '/api/content', { url: '/about-us', templates: edit })
		).data.page;

		const ended = await decideOnSite(ctx.rest, waiting, 'approve');
		// A clear item on the error output, not a failed execution.
		expect(ended.status).toBe('success');
		expect(n8nCommands.nodeItems(ended.run, 'Apply proposal', { output: 1 })).toEqual([
			expect.objectContaining({
				message: expect.stringMatching(/^The page changed since the proposal was made: \/about-us/),
			}),
		]);
		expect(await aboutUs()).toMatchObject({ templates: edit, updated_at: edited.updated_at });
		expect(await notification()).toMatchObject({
			status: 'error',
			message: expect.stringMatching(
				/^The AI proposal for \/about-us was approved but not applied: The page changed since the proposal was made: \/about-us was last updated at /,
			),
		});
	});
});

describe("the AI agent example in a running n8n: n8n's review of tool calls, in the site, before every write", () => {
	const AGENT = stack.WORKFLOWS.aiAgent.id;
	const agentNotification = () => notificationOf('ai-agent-/about-us');
	/** The site's review request for `tool` in execution `id` (the Site Management Tenant review tool). */
	const reviewOf = (tool, id) =>
		stack.waitFor(
			`the site's review of ${tool}`,
			async () => {
				const entry = await notificationOf(`ai-agent-review-${tool}`);
				return entry?.message.includes(`/webhook-waiting/${id}`) ? entry : undefined;
			},
			{ timeoutMs: 120000, everyMs: 250 },
		);
	const linkOf = (entry, label) => new RegExp(`${label}: (\\S+)`).exec(entry.message)?.[1];
	/** Confirms the link once n8n waits for it (a request sent a moment before is asked again). */
	const confirmWhenWaiting = async (id, link) => {
		for (let tries = 0; ; tries++) {
			await ctx.rest.waitForExecution(id, { until: ['waiting'] });
			const answer = await confirmLink(link);
			if (answer.status === 200 || tries === 10) {
				expect(answer.status).toBe(200);
				return;
			}
			await new Promise((resolve) => setTimeout(resolve, 500));
		}
	};

	beforeAll(startRunningN8n, 300000);

	if (!runtime.RUNTIME.reviewsToolCalls) {
		test('n8n 1.x has no review of tool calls: the agent example does not run, and nothing is written', async () => {
			await resetAboutUs();
			const before = await aboutUs();
			// n8n 1.x refuses to start it: it does not know the review node.
			await expect(ctx.rest.runWorkflow(AGENT)).rejects.toThrow(
				/Unrecognized node type: n8n-nodes-site-management\.siteTenantHitl/,
			);
			expect(await aboutUs()).toEqual(before);
		});
		return;
	}

	test("approved by the site owner in the site's notifications: the apply, then the notification, each after its review", async () => {
		await resetAboutUs();
		const before = await aboutUs();
		const id = await ctx.rest.runWorkflow(AGENT);

		// The first write the model asks for waits for the owner; the page is untouched meanwhile.
		const applyReview = await reviewOf('apply_proposal', id);
		expect(applyReview).toMatchObject({ status: 'warning' });
		expect(applyReview.message).toMatch(
			/^The AI site editor wants to change a page: it asks to run apply_proposal/,
		);
		expect(applyReview.message).toContain(before.updated_at);
		expect(await aboutUs()).toEqual(before);
		await confirmWhenWaiting(id, linkOf(applyReview, 'Approve'));

		const notifyReview = await reviewOf('notify_site_owner', id);
		expect(notifyReview.message).toMatch(/^The AI site editor wants to notify you/);
		const page = await aboutUs();
		expect(page.templates[0]).toEqual({
			type: 'heading',
			text: 'About us: rewritten by the AI stand-in',
		});
		await confirmWhenWaiting(id, linkOf(notifyReview, 'Approve'));

		const ended = await ctx.rest.waitForExecution(id);
		expect(ended.status).toBe('success');
		expect(await agentNotification()).toMatchObject({ status: 'success' });
	});

	test('declined: nothing is written, and the run ends', async () => {
		await resetAboutUs();
		const before = await aboutUs();
		const notificationBefore = await agentNotification();
		const id = await ctx.rest.runWorkflow(AGENT);

		await confirmWhenWaiting(id, linkOf(await reviewOf('apply_proposal', id), 'Decline'));
		// The model was told the owner declined; the notification it tries next is declined too.
		await confirmWhenWaiting(id, linkOf(await reviewOf('notify_site_owner', id), 'Decline'));
		const ended = await ctx.rest.waitForExecution(id);
		expect(ended.status).toBe('success');
		expect(await aboutUs()).toEqual(before);
		expect(await agentNotification()).toEqual(notificationBefore);
	});
});
