'use strict';
/**
 * End to end through a real n8n (n8n 2.x on Node 24, from tools/n8n-runtime/) against the reference server.
 *
 * One stack for the whole file: a reference server (in memory, ephemeral port), an OpenAI-compatible
 * stand-in on loopback, and an n8n user folder in a temporary directory with this package loaded as
 * a community package (<user folder>/.n8n/nodes/node_modules/n8n-nodes-site-management). One
 * `n8n start` serves the file: the workflows run in it as the editor runs them (e2eStack.restRunner),
 * and the contact-form workflow is published in it.
 * The tests run in order and build on each other (the onboarding creates the tenant the managed
 * credential works on, the last ones read everything n8n stored).
 */
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const processes = require('../../scripts/lib/process');
const stack = require('../../scripts/lib/stack');
const { startAiStandIn, proposalFor } = require('../../scripts/lib/ai-stand-in');
const e2eStack = require('./lib/stack');
const runData = require('./lib/run-data');

const say = e2eStack.progressLog('n8n e2e');

const TEST_WORKFLOWS = {
	tenantOps: {
		id: 'e2eTenantOps0001',
		file: path.join(__dirname, 'workflows', 'tenant-operations.json'),
	},
	adminOps: {
		id: 'e2eAdminOps00001',
		file: path.join(__dirname, 'workflows', 'admin-operations.json'),
	},
	managed: {
		id: 'e2eManagedOps001',
		file: path.join(__dirname, 'workflows', 'managed-credential.json'),
	},
};
const AI_API_KEY = 'ai-stand-in-key-e2e';
const DEMO_TENANT = 'demo';
const ABOUT_US = { url: '/about-us', templates: [{ type: 'text', body: 'We are a small team.' }] };
const AI_TOOLS = ['apply_proposal', 'get_page_context', 'notify_site_owner'];

/**
 * The agent example with its tools connected straight to the agent, without n8n's review of tool
 * calls in front of the writes (which examples-stock.e2e.test.js runs with a person's approval):
 * here the tools themselves are under test, on n8n 1.x too.
 */
function withoutReview(workflow) {
	const reviews = workflow.nodes.filter((node) => node.type.endsWith('HitlTool'));
	for (const review of reviews) {
		const [[target]] = workflow.connections[review.name].ai_tool;
		for (const outputs of Object.values(workflow.connections))
			for (const connection of outputs.ai_tool?.flat() ?? [])
				if (connection.node === review.name) connection.node = target.node;
		delete workflow.connections[review.name];
	}
	workflow.nodes = workflow.nodes.filter((node) => !reviews.includes(node));
}

/**
 * Variants of the AI examples, created in n8n with the others: the
 * chain stopped after its dry run, and the agent without its review of tool calls, as it is and
 * asked to try an invalid proposal first.
 */
const DERIVED_WORKFLOWS = {
	agentUnreviewed: {
		id: 'e2eAiAgentRaw001',
		from: 'aiAgent',
		change: withoutReview,
	},
	chainDryRunOnly: {
		id: 'e2eAiChainDry001',
		from: 'aiChain',
		change: (workflow) => {
			// Everything after the review: the approval a person gives (examples-stock.e2e.test.js runs it).
			const kept = ['Start', 'Page to improve', 'Page context', 'Propose content'];
			kept.push('OpenAI Chat Model', 'Review (dry run)', 'About this workflow');
			workflow.nodes = workflow.nodes.filter((node) => kept.includes(node.name));
			for (const name of Object.keys(workflow.connections))
				if (name === 'Review (dry run)' || !kept.includes(name)) delete workflow.connections[name];
		},
	},
	agentInvalidFirst: {
		id: 'e2eAiAgentBad001',
		from: 'aiAgent',
		change: (workflow) => {
			withoutReview(workflow);
			const request = workflow.nodes.find((node) => node.name === 'Request');
			request.parameters.assignments.assignments[0].value =
				'Improve the about page (/about-us) and tell the owner; first try an invalid proposal.';
		},
	},
};

function derivedWorkflows() {
	return Object.entries(DERIVED_WORKFLOWS).map(([key, derived]) => {
		const workflow = readWorkflow(
			path.join(stack.EXAMPLES_DIR, stack.WORKFLOWS[derived.from].file),
		);
		derived.change(workflow);
		return Object.assign(workflow, { id: derived.id, name: `e2e: ${key}` });
	});
}

const readWorkflow = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

/** Everything the tests share. */
const ctx = {
	/** Every token the tests saw: none may appear in a workflow or in execution output (except Issue Token's). */
	secrets: new Set(),
	/** The runs of the tests' workflows, as n8n stored them, by workflow id. */
	runs: {},
};

function remember(token) {
	if (typeof token === 'string' && token) ctx.secrets.add(token);
	return token;
}

async function execute(workflowId) {
	return await e2eStack.executeOk(workflowId, {
		runner: ctx.runner,
		log: say,
		record: (run) => (ctx.runs[workflowId] = [...(ctx.runs[workflowId] ?? []), run]),
	});
}

const items = (run, node) => n8nCommands.nodeItems(run, node);
const one = runData.oneItem;
/** Token-shaped strings and known tokens found in a text. */
const leaks = (text) => runData.leaks(text, ctx.secrets);

/** A run's data without the outputs of Token > Issue nodes (the one place a token may appear). */
function runDataWithoutIssueToken(resultData, nodes) {
	const issueNodes = new Set(
		(nodes ?? [])
			.filter((node) => /\.siteAdmin$/.test(node.type) && node.parameters?.resource === 'token')
			.map((node) => node.name),
	);
	const runData = Object.fromEntries(
		Object.entries(resultData?.runData ?? {}).filter(([name]) => !issueNodes.has(name)),
	);
	return { ...resultData, runData };
}

const openN8nDatabase = () => stack.openN8nDatabase(ctx.userFolder);
const executionCount = (workflowId) => stack.executionCount(ctx.userFolder, workflowId);

beforeAll(async () => {
	say('checking the n8n runtime (tools/n8n-runtime/node_modules)');
	await runtimeInstall.ensureRuntime({ log: say });

	ctx.server = await e2eStack.startReferenceServer({
		enableVariables: true,
		deliveryRetryBaseMs: 200,
		// n8n runs beside the server on loopback, which webhooks reach only when allowed.
		webhookAllow: 'loopback',
	});
	remember(ctx.server.adminToken);
	ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
	ctx.public = stack.siteClient(ctx.server.url);
	say(`reference server on ${ctx.server.url}`);

	ctx.ai = await startAiStandIn({ apiKey: AI_API_KEY });
	say(`AI stand-in on ${ctx.ai.chatCompletionsUrl}`);

	// The site the Tenant API credential works on, with the page the AI example improves.
	const demo = await e2eStack.addTenant(ctx.server, DEMO_TENANT);
	ctx.demoToken = remember(demo.token);
	ctx.demo = demo.client;
	expect(
		(await ctx.demo('POST', '/api/page', { name: 'About us', url: '/about-us', locale: 'en' }))
			.status,
	).toBe(201);
	expect((await ctx.demo('PUT', '/api/content', ABOUT_US)).status).toBe(200);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-e2e-'));
	say(`n8n user folder ${ctx.userFolder}; package staged as a community package`);

	await e2eStack.importSiteCredentials(ctx, { aiUrl: ctx.ai.baseUrl, aiApiKey: AI_API_KEY });
	say('credentials saved in n8n');
	const workflows = [
		...Object.values(stack.WORKFLOWS).map((workflow) =>
			readWorkflow(path.join(stack.EXAMPLES_DIR, workflow.file)),
		),
		...Object.values(TEST_WORKFLOWS).map((workflow) => readWorkflow(workflow.file)),
		...derivedWorkflows(),
	];
	await e2eStack.createWorkflows(ctx, workflows);
	ctx.runner = await e2eStack.restRunner(ctx, 'e2e');
	say(`${workflows.length} workflows created; n8n on ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	if (ctx.n8n) await ctx.n8n.stop();
	if (ctx.ai) await ctx.ai.close();
	if (ctx.server) await ctx.server.close();
	if (ctx.userFolder && !process.env.SITE_E2E_KEEP)
		fs.rmSync(ctx.userFolder, { recursive: true, force: true });
	else if (ctx.userFolder) say(`kept ${ctx.userFolder}`);
	say('done');
});

describe('examples and operations, run in n8n as the editor runs them', () => {
	test('tenant onboarding example: several tenants, the pages of each with content, through one Managed Tenant credential with no Tenant ID', async () => {
		// As `npm start` does: the acme tenant exists, empty, before the example runs; the example
		// updates it and creates the other sites of its list.
		expect(
			await stack.ensureTenant(ctx.server.url, ctx.server.adminToken, {
				id: stack.ONBOARDING_TENANT,
			}),
		).toBe(true);
		const run = await execute(stack.WORKFLOWS.onboarding.id);

		expect(items(run, 'Create or update tenant')).toEqual([
			expect.objectContaining({
				id: 'acme',
				fqdn: 'acme.example.com',
				created: false,
				result: 'updated',
			}),
			expect.objectContaining({
				id: 'globex',
				fqdn: 'globex.example.com',
				created: true,
				result: 'created',
			}),
			expect.objectContaining({
				id: 'initech',
				fqdn: 'initech.example.com',
				created: true,
				result: 'created',
			}),
		]);
		// The examples use the current version: every page operation outputs the page itself.
		expect(items(run, 'Create page').map((page) => page.url)).toEqual([
			'/',
			'/about-us',
			'/contact',
			'/',
			'/products',
			'/',
			'/contact',
		]);
		expect(items(run, 'Set page content')).toHaveLength(7);

		// What the server holds, read with tokens this test issues.
		const siteOf = async (tenant) =>
			stack.siteClient(
				ctx.server.url,
				remember((await ctx.admin('POST', '/api/tenant/token', { id: tenant })).data.token),
			);
		const acme = await siteOf('acme');
		const about = await acme('GET', '/api/pages?url=%2Fabout-us');
		expect(about.status).toBe(200);
		expect(about.data.data[0]).toMatchObject({
			name: 'About us',
			meta_title: 'About Acme',
			draft: false,
		});
		expect(about.data.data[0].templates[0]).toEqual({ type: 'heading', text: 'About us' });
		const globex = await siteOf('globex');
		expect(
			(await globex('GET', '/api/pages?per_page=10')).data.data.map((page) => page.url).sort(),
		).toEqual(['/', '/products']);
		const initech = await siteOf('initech');
		expect(
			(await initech('GET', '/api/pages?per_page=10')).data.data.map((page) => page.url).sort(),
		).toEqual(['/', '/contact']);
	});

	test('Admin node: tenant create, update (rename), token issue (rotation), delete', async () => {
		const run = await execute(TEST_WORKFLOWS.adminOps.id);
		expect(one(run, 'Create tenant')).toMatchObject({ id: 'e2e-tmp', fqdn: 'tmp.example.com' });
		expect(one(run, 'Rename tenant')).toMatchObject({ id: 'e2e-renamed', old_id: 'e2e-tmp' });
		const issued = one(run, 'Issue token');
		remember(issued.token);
		expect(issued).toMatchObject({ tenant_id: 'e2e-renamed', token_type: 'Bearer' });
		expect(issued.expires_at).toEqual(expect.any(String));
		expect(one(run, 'Delete tenant')).toMatchObject({
			message: 'Tenant deleted successfully.',
			id: 'e2e-renamed',
		});
		// Gone, and its token with it.
		expect((await ctx.admin('DELETE', '/api/tenant', { id: 'e2e-renamed' })).status).toBe(404);
		expect((await stack.siteClient(ctx.server.url, issued.token)('GET', '/api/pages')).status).toBe(
			401,
		);
	});

	test('Tenant node: page, content, asset, settings, sitemap, notification, variable, AI and custom API call operations', async () => {
		const run = await execute(TEST_WORKFLOWS.tenantOps.id);
		expect(one(run, 'Create page')).toMatchObject({
			url: '/e2e-page',
			name: 'E2E page',
			meta_title: 'E2E title',
		});
		expect(one(run, 'Get page')).toMatchObject({ url: '/e2e-page', locale: 'en' });
		expect(items(run, 'List pages').map((page) => page.url)).toEqual(
			expect.arrayContaining(['/about-us', '/e2e-page']),
		);
		expect(one(run, 'Update content')).toMatchObject({
			templates: [{ type: 'text', body: 'Hello from n8n' }],
			banner: { title: 'E2E banner' },
		});

		const asset = one(run, 'Upload asset');
		expect(asset).toMatchObject({ name: 'hello-e2e.txt', size: 'hello asset from n8n'.length });
		const download = await fetch(asset.url);
		expect(download.status).toBe(200);
		expect(await download.text()).toBe('hello asset from n8n');

		expect(one(run, 'Update settings')).toMatchObject({ google_code: 'G-E2E0001' });
		expect(items(run, 'Sitemap').map((page) => page.url)).toEqual(
			expect.arrayContaining(['/about-us', '/e2e-page']),
		);
		expect(one(run, 'Send notification')).toMatchObject({
			id: 'e2e-progress',
			status: 'warning',
		});
		expect(one(run, 'Set variable')).toEqual({ key: 'e2e_key', value: 'e2e value' });
		expect(items(run, 'List variables')).toEqual(
			expect.arrayContaining([expect.objectContaining({ key: 'e2e_key', value: 'e2e value' })]),
		);
		one(run, 'Delete variable');
		expect(one(run, 'Page context').prompt).toContain('/e2e-page');
		// The dry run passes its input on, with what would change under dryRun.
		expect(one(run, 'Dry-run proposal').dryRun).toMatchObject({
			url: '/e2e-page',
			// Get Page Context's sealed version, given as Page Version: the page is unchanged.
			version: { unchanged: true },
		});
		const customCall = items(run, 'Custom call');
		expect(JSON.stringify(customCall)).toContain('e2e-progress');
		expect(one(run, 'Delete page')).toMatchObject({
			deleted: true,
			permanently: false,
			url: '/e2e-page',
			templates: [{ type: 'text', body: 'Hello from n8n' }],
		});

		// The server's side of it.
		expect(
			(await ctx.demo('GET', '/api/variables')).data.data.find((v) => v.key === 'e2e_key'),
		).toBeUndefined();
		expect((await ctx.demo('GET', '/api/settings')).data.settings).toMatchObject({
			google_code: 'G-E2E0001',
			noindex: 1,
		});
		// Deleted by default = archived: out of the listings, and the dry run changed nothing.
		expect((await ctx.demo('GET', '/api/pages?url=%2Fe2e-page')).data.data).toHaveLength(0);
		const sitemap = await ctx.demo('POST', '/api/sitemap', {});
		expect(sitemap.data.pages.map((page) => page.url)).not.toContain('/e2e-page');
	});

	test('Managed Tenant credentials: each run mints its own tokens inside n8n and stores none; a revocation elsewhere does not matter', async () => {
		const exportFile = path.join(ctx.userFolder, 'managed-credential-export.json');
		const managedCredentials = [
			stack.CREDENTIALS.managed.id,
			stack.CREDENTIALS.managedEverySite.id,
		].map((id) => e2eStack.credentialIdOf(ctx, id));
		/** The Access Token n8n holds for each managed credential (one decrypted export of all). */
		const storedTokens = async () => {
			try {
				await n8nCommands.n8nCliOk(
					['export:credentials', '--all', '--decrypted', `--output=${exportFile}`],
					{ env: ctx.env },
				);
				const exported = JSON.parse(fs.readFileSync(exportFile, 'utf8'));
				return managedCredentials.map((id) => {
					const credential = exported.find((candidate) => candidate.id === id);
					expect(credential).toBeDefined();
					return credential.data.accessToken;
				});
			} finally {
				fs.rmSync(exportFile, { force: true });
			}
		};
		const tokensIssued = (tenantId) =>
			ctx.server.app.site.store.db
				.prepare(
					'SELECT COUNT(*) AS n FROM tokens k JOIN tenants t ON t.pk = k.tenant_pk WHERE t.id = ?',
				)
				.get(tenantId).n;

		// The onboarding ran its page nodes on the every-site credential: the run minted its tokens,
		// n8n stored none.
		for (const token of await storedTokens()) expect(token).toBeFalsy();
		// Revoke every acme token (what a rotation elsewhere does): no run relies on an earlier token.
		remember(
			(await ctx.admin('POST', '/api/tenant/token', { id: 'acme', revoke_previous: true })).data
				.token,
		);
		const before = tokensIssued('acme');

		const run = await execute(TEST_WORKFLOWS.managed.id);
		expect(one(run, 'Notify (managed)')).toMatchObject({ id: 'managed-mint', status: 'info' });
		expect(items(run, 'List pages (managed)').length).toBeGreaterThanOrEqual(3);

		// A fresh token, minted inside n8n: one for the execution (its two Tenant nodes share it), none
		// kept after.
		expect(tokensIssued('acme') - before).toBe(1);
		for (const token of await storedTokens()) expect(token).toBeFalsy();
	});
});

const { toolRuns } = runData;

/** The tool calls the stand-in answered since `from`, with the tool results n8n sent back. */
function modelToolCalls(from) {
	const requests = ctx.ai.requests.slice(from);
	const last = requests[requests.length - 1].body.messages;
	const results = new Map(
		last.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]),
	);
	return last
		.filter((m) => m.role === 'assistant' && m.tool_calls)
		.flatMap((m) => m.tool_calls)
		.map((call) => ({
			name: call.function.name,
			args: JSON.parse(call.function.arguments),
			result: results.get(call.id),
		}));
}

describe("AI: n8n's own AI nodes on an OpenAI credential pointed at the stand-in", () => {
	const aboutUs = async () => (await ctx.demo('GET', '/api/pages?url=%2Fabout-us')).data.data[0];

	test("chain example up to its dry run: the prompt is Get Page Context's, the review shows the change and the page version, the server is unchanged", async () => {
		await ctx.demo('PUT', '/api/content', ABOUT_US);
		const before = await aboutUs();
		const requestsBefore = ctx.ai.requests.length;
		const run = await execute(DERIVED_WORKFLOWS.chainDryRunOnly.id);

		expect(ctx.ai.requests.length).toBe(requestsBefore + 1);
		const request = ctx.ai.requests[requestsBefore];
		expect(request.headers.authorization).toBe(`Bearer ${AI_API_KEY}`);
		expect(request.body).toMatchObject({ model: 'gpt-4o-mini' });
		expect(request.body.tools).toBeUndefined();
		const prompt = request.body.messages.find((message) => message.role === 'user').content;
		expect(prompt).toBe(one(run, 'Page context').prompt);
		expect(prompt).toContain('Page: /about-us');
		expect(prompt).toContain('We are a small team.');
		expect(prompt).toContain('JSON schema of the answer');
		// The version: the page's updated_at, sealed for the page and the credential (siteVersion.ts).
		expect(prompt).toContain(`"version": "${before.updated_at}~`);

		// The model gave the version back; the review shows what would change and that the page is
		// still at that version. The approval and the apply: examples-stock.e2e.test.js.
		const { version, ...content } = proposalFor(prompt);
		expect(version).toBe(one(run, 'Page context').version);
		expect(version.startsWith(`${before.updated_at}~`)).toBe(true);
		const review = one(run, 'Review (dry run)');
		expect(review.text).toContain('```json');
		expect(review.dryRun).toMatchObject({
			url: '/about-us',
			wouldSend: content,
			changes: { templates: { before: ABOUT_US.templates, changed: true } },
			version: { proposal: before.updated_at, page: before.updated_at, unchanged: true },
		});
		expect(await aboutUs()).toEqual(before);
	});

	test("agent example (without its review of tool calls): the model sees the Tenant node's tools, and the tools read the page, apply content and notify the owner", async () => {
		await ctx.demo('PUT', '/api/content', ABOUT_US);
		const requestsBefore = ctx.ai.requests.length;
		const run = await execute(DERIVED_WORKFLOWS.agentUnreviewed.id);

		const requests = ctx.ai.requests.slice(requestsBefore);
		expect(requests).toHaveLength(4);
		const tools = Object.fromEntries(
			requests[0].body.tools.map((tool) => [tool.function.name, tool.function]),
		);
		expect(Object.keys(tools).sort()).toEqual(AI_TOOLS);
		const argumentsOf = (name) =>
			Object.fromEntries(
				Object.entries(tools[name].parameters.properties).map(([key, schema]) => [
					key,
					schema.type,
				]),
			);
		expect(argumentsOf('get_page_context')).toEqual({ page: 'string' });
		expect(argumentsOf('apply_proposal')).toEqual({ page: 'string', proposal: 'string' });
		expect(argumentsOf('notify_site_owner')).toEqual({ page: 'string', message: 'string' });
		expect(tools.apply_proposal.parameters.required.sort()).toEqual(['page', 'proposal']);
		expect(tools.apply_proposal.description).toMatch(
			/^Replaces the content of a page with a proposal/,
		);
		expect(tools.get_page_context.parameters.properties.page.description).toBe(
			'The path of the page on the website, e.g. /about-us',
		);

		const calls = modelToolCalls(requestsBefore);
		expect(calls.map((call) => call.name)).toEqual([
			'get_page_context',
			'apply_proposal',
			'notify_site_owner',
		]);
		for (const name of AI_TOOLS)
			expect(toolRuns(run, name)).toEqual([{ error: undefined, output: [expect.any(Object)] }]);
		// Compact tool outputs: the context is its prompt; an apply says it worked.
		expect(JSON.parse(calls[0].result)).toEqual([
			{
				url: '/about-us',
				version: expect.any(String),
				prompt: expect.stringContaining(JSON.stringify(ABOUT_US.templates[0])),
			},
		]);
		expect(JSON.parse(calls[1].result)).toEqual([
			{
				message: 'Content updated successfully.',
				url: '/about-us',
				updated_at: expect.any(String),
			},
		]);

		const proposal = JSON.parse(calls[1].args.proposal);
		expect(proposal.templates[0]).toEqual({
			type: 'heading',
			text: 'About us: rewritten by the AI stand-in',
		});
		const page = await aboutUs();
		expect({ templates: page.templates, banner: page.banner }).toEqual({
			templates: proposal.templates,
			banner: proposal.banner,
		});
		const notification = (await ctx.demo('GET', '/api/notifications')).data.data.find(
			(n) => n.id === 'ai-agent-/about-us',
		);
		expect(notification).toMatchObject({ status: 'success', message: calls[2].args.message });
		expect(one(run, 'Site editor agent').output).toMatch(/^Done: /);
	});

	const invalidProposalTest = runtime.RUNTIME.agentReturnsToolErrors
		? 'agent: an invalid proposal comes back to the model as a readable tool error, and the run goes on'
		: "agent (n8n 1.x): an invalid proposal stops the run with the node's readable error, and nothing is applied";
	test(invalidProposalTest, async () => {
		await ctx.demo('PUT', '/api/content', ABOUT_US);
		const requestsBefore = ctx.ai.requests.length;
		if (!runtime.RUNTIME.agentReturnsToolErrors) {
			await expect(execute(DERIVED_WORKFLOWS.agentInvalidFirst.id)).rejects.toThrow(
				'apply_proposal: No usable proposal in the proposal: Proposal templates must be an array, got a string',
			);
			expect(ctx.ai.requests.length - requestsBefore).toBeGreaterThanOrEqual(2); // the context, then the bad apply
			expect((await aboutUs()).templates).toEqual(ABOUT_US.templates);
			return;
		}
		const run = await execute(DERIVED_WORKFLOWS.agentInvalidFirst.id);

		const calls = modelToolCalls(requestsBefore);
		expect(calls.map((call) => call.name)).toEqual([
			'get_page_context',
			'apply_proposal',
			'apply_proposal',
			'notify_site_owner',
		]);
		expect(JSON.parse(calls[1].result)).toEqual([
			{
				error:
					'No usable proposal in the proposal: Proposal templates must be an array, got a string',
			},
		]);
		const applies = toolRuns(run, 'apply_proposal');
		expect(applies.map((applied) => applied.error)).toEqual([
			expect.stringContaining('Proposal templates must be an array'),
			undefined,
		]);
		const page = await aboutUs();
		expect(page.templates).toEqual(JSON.parse(calls[2].args.proposal).templates);
		expect(one(run, 'Site editor agent').output).toContain('1 tool call(s) failed on the way');
	});
});

/**
 * Waits on a delivery through the site's worker and n8n: they return at once when it lands, and on a
 * busy machine the first one (n8n's first webhook execution) has taken more than the default 30 s.
 */
const DELIVERY_WAIT = { timeoutMs: 90000 };

/**
 * DELIVERY_WAIT with what a timeout needs to tell why: the site's record of the submission's delivery
 * (undefined: every delivery of the tenant), each attempt with its answer, and n8n's log tail.
 */
const deliveryWait = (submissionId, timeoutMs = DELIVERY_WAIT.timeoutMs) => ({
	timeoutMs,
	explain: () =>
		e2eStack.deliveryReport({
			server: ctx.server,
			site: ctx.demo,
			submissionId,
			userFolder: ctx.userFolder,
		}),
});

describe('contact form trigger in an active workflow, served by n8n start', () => {
	test("published workflow registers itself: the site delivers to n8n's production URL with a secret header", async () => {
		await e2eStack.publish(ctx, stack.WORKFLOWS.contactForm.id);
		say('contact-form workflow published; waiting for the trigger to register with the site');

		const settings = await stack.waitFor(
			'the trigger to register its webhook URL',
			async () => {
				const current = (await ctx.demo('GET', '/api/settings')).data.settings;
				return current.contact_form_webhook_url ? current : undefined;
			},
			{ timeoutMs: 90000, everyMs: 500 },
		);
		ctx.webhookUrl = settings.contact_form_webhook_url;
		expect(ctx.webhookUrl.startsWith(`${ctx.n8nUrl}/webhook/`)).toBe(true);
		const headers = settings.contact_form_webhook_headers;
		expect(Object.keys(headers)).toHaveLength(1);
		ctx.secretHeader = Object.keys(headers)[0];
		ctx.secret = remember(headers[ctx.secretHeader]);
		expect(ctx.secret.length).toBeGreaterThanOrEqual(32);
		say(`registered ${ctx.webhookUrl} (secret header ${ctx.secretHeader})`);
	});

	test("a submission posted to the site reaches n8n and the workflow's effects show on the server", async () => {
		const submitted = await ctx.public('POST', `/forms/${DEMO_TENANT}/contact`, {
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			message: 'Please call me back about the analytical engine.',
		});
		expect(submitted.status).toBe(202);
		const id = submitted.data.submission_id;
		ctx.submissionId = id;

		const notification = await stack.waitFor(
			'the contact-form notification',
			async () =>
				(await ctx.demo('GET', '/api/notifications')).data.data.find(
					(n) => n.id === `contact-${id}`,
				),
			deliveryWait(id),
		);
		expect(notification.message).toBe(
			'New contact-form message from Ada Lovelace <ada@example.com>: Please call me back about the analytical engine.',
		);
		const variable = await stack.waitFor(
			'the last-submission variable',
			async () =>
				(await ctx.demo('GET', '/api/variables')).data.data.find(
					(v) => v.key === 'contact_last_submission' && v.value.includes(id),
				),
			deliveryWait(id, 30000),
		);
		expect(JSON.parse(variable.value)).toMatchObject({
			submission_id: id,
			name: 'Ada Lovelace',
			email: 'ada@example.com',
		});
		// The workflow's writes land before n8n answers the delivery, so the site may record it a moment later.
		const delivery = await stack.waitFor(
			'the delivery to be recorded as delivered',
			async () =>
				(await ctx.demo('GET', '/api/contact-form/deliveries')).data.data.find(
					(d) => d.submission_id === id && d.state === 'delivered',
				),
			deliveryWait(id, 30000),
		);
		expect(delivery).toMatchObject({ state: 'delivered', last_status: 200 });
		await stack.waitFor(
			'the execution to be stored',
			async () => executionCount(stack.WORKFLOWS.contactForm.id) >= 1,
			deliveryWait(id, 30000),
		);
	});

	test('a forged delivery (no secret, wrong secret) gets 401 and starts no execution', async () => {
		const before = executionCount(stack.WORKFLOWS.contactForm.id);
		const body = JSON.stringify({
			submission_id: '00000000-0000-4000-8000-000000000001',
			tenant_id: DEMO_TENANT,
			form: 'contact',
			submitted_at: new Date().toISOString(),
			fields: { name: 'Mallory', message: 'forged' },
		});
		const post = (headers) =>
			fetch(ctx.webhookUrl, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body,
			});

		const noSecret = await post({});
		expect(noSecret.status).toBe(401);
		const wrongSecret = await post({ [ctx.secretHeader]: 'x'.repeat(43) });
		expect(wrongSecret.status).toBe(401);

		await processes.sleep(2000);
		expect(executionCount(stack.WORKFLOWS.contactForm.id)).toBe(before);
		const notifications = (await ctx.demo('GET', '/api/notifications')).data.data;
		expect(
			notifications.find((n) => n.id === 'contact-00000000-0000-4000-8000-000000000001'),
		).toBeUndefined();
	});
});

describe("credential test in n8n (the editor's Test button: POST /rest/credentials/test)", () => {
	test('Admin API credential: passes with the admin token, fails with a wrong token, a tenant token or a URL that is not the service', async () => {
		const cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'e2e');
		const testAdmin = async (data) =>
			await stack.testCredentialInN8n(ctx.n8nUrl, cookie, {
				...stack.CREDENTIALS.admin,
				id: e2eStack.credentialIdOf(ctx, stack.CREDENTIALS.admin.id),
				data,
			});

		expect(
			await testAdmin({ baseUrl: ctx.server.url, token: ctx.server.adminToken }),
		).toMatchObject({ status: 'OK' });
		expect(
			await testAdmin({ baseUrl: ctx.server.url, token: 'sat_not-the-admin-token-at-all' }),
		).toEqual(
			expect.objectContaining({
				status: 'Error',
				message: expect.stringMatching(/admin token was not accepted/),
			}),
		);
		expect(await testAdmin({ baseUrl: ctx.server.url, token: ctx.demoToken })).toEqual(
			expect.objectContaining({
				status: 'Error',
				message: expect.stringMatching(/not an admin token/),
			}),
		);
		// n8n's own address: a web server, but not the service.
		expect(await testAdmin({ baseUrl: ctx.n8nUrl, token: ctx.server.adminToken })).toMatchObject({
			status: 'Error',
		});
	});
});

describe('repeated deliveries in a real n8n (the site holds the claim; webhook() writes no static data)', () => {
	const delivery = (submissionId, fields) =>
		JSON.stringify({
			submission_id: submissionId,
			tenant_id: DEMO_TENANT,
			form: 'contact',
			submitted_at: new Date().toISOString(),
			fields,
		});
	const deliver = (body) =>
		fetch(ctx.webhookUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', [ctx.secretHeader]: ctx.secret },
			body,
		});
	const webhookExecutions = () => executionCount(stack.WORKFLOWS.contactForm.id);

	test('the delivered submission posted again 3 times one after the other, then 30 at once: still 1 execution', async () => {
		await stack.waitFor(
			'the first execution to be stored',
			async () => webhookExecutions() >= 1,
			deliveryWait(ctx.submissionId),
		);
		const before = webhookExecutions();
		expect(before).toBe(1);
		const body = delivery(ctx.submissionId, {
			name: 'Ada Lovelace',
			email: 'ada@example.com',
			message: 'again',
		});
		for (let attempt = 0; attempt < 3; attempt++) {
			const answer = await deliver(body);
			expect(answer.status).toBe(200);
			expect(await answer.json()).toEqual({
				message: 'Submission already received',
				submission_id: ctx.submissionId,
			});
		}
		const together = await Promise.all(Array.from({ length: 30 }, () => deliver(body)));
		expect(together.map((answer) => answer.status)).toEqual(Array(30).fill(200));
		await processes.sleep(3000);
		expect(webhookExecutions()).toBe(1);
		say(`repeats: 33 redeliveries of one submission, executions ${webhookExecutions()}`);
	});

	test('a new submission delivered 30 times at once starts 1 execution; the one started gets an empty 200, not "firstEntryJson"', async () => {
		const before = webhookExecutions();
		const submissionId = require('node:crypto').randomUUID();
		const body = delivery(submissionId, {
			name: 'Grace Hopper',
			email: 'grace@example.com',
			message: 'all at once',
		});
		const answers = await Promise.all(Array.from({ length: 30 }, () => deliver(body)));
		const texts = await Promise.all(answers.map((answer) => answer.text()));
		expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
		const acknowledgements = texts.filter((text) => text !== '');
		// One empty answer (the execution started), 29 small JSON acknowledgements.
		expect(texts.filter((text) => text === '')).toHaveLength(1);
		for (const text of acknowledgements)
			expect(JSON.parse(text)).toEqual({
				message: 'Submission already received',
				submission_id: submissionId,
			});
		expect(texts.join('')).not.toContain('firstEntryJson');

		await stack.waitFor(
			'the contact-form notification of the new submission',
			async () =>
				(await ctx.demo('GET', '/api/notifications')).data.data.find(
					(n) => n.id === `contact-${submissionId}`,
				),
			deliveryWait(submissionId),
		);
		await stack.waitFor(
			'its execution to be stored',
			async () => webhookExecutions() >= before + 1,
		);
		await processes.sleep(3000);
		expect(webhookExecutions()).toBe(before + 1);
		say(
			`repeats: 30 simultaneous deliveries of a new submission, executions +${webhookExecutions() - before}`,
		);
	});
});

describe('no token outside credentials', () => {
	test('no token in what the model was sent', async () => {
		// Every model request of the AI tests above (fewer on n8n 1.x, whose agent stops at a tool error).
		expect(ctx.ai.requests.length).toBeGreaterThanOrEqual(
			runtime.RUNTIME.agentReturnsToolErrors ? 10 : 7,
		);
		expect(leaks(JSON.stringify(ctx.ai.requests))).toEqual([]);
	});

	test('no exported workflow holds a token (n8n export:workflow --all)', async () => {
		if (ctx.n8n) {
			await ctx.n8n.stop();
			ctx.n8n = undefined;
		}
		const file = path.join(ctx.userFolder, 'exported-workflows.json');
		await n8nCommands.n8nCliOk(['export:workflow', '--all', `--output=${file}`], { env: ctx.env });
		const text = fs.readFileSync(file, 'utf8');
		const workflows = JSON.parse(text);
		expect(workflows.map((workflow) => workflow.id)).toEqual(
			expect.arrayContaining(
				[...Object.values(stack.WORKFLOWS), ...Object.values(TEST_WORKFLOWS)].map(
					(workflow) => workflow.id,
				),
			),
		);
		expect(ctx.secrets.size).toBeGreaterThanOrEqual(5);
		expect(leaks(text)).toEqual([]);
		// The trigger's registration was saved with the workflow, with the secret's hash only.
		const contactForm = workflows.find(
			(workflow) => workflow.id === stack.WORKFLOWS.contactForm.id,
		);
		const registrations = Object.values(
			contactForm.staticData?.['node:Contact form']?.registrations ?? {},
		);
		expect(registrations).toEqual([
			expect.objectContaining({
				url: ctx.webhookUrl,
				secretHash: require('node:crypto').createHash('sha256').update(ctx.secret).digest('hex'),
			}),
		]);
		expect(text).not.toContain(ctx.secret);
	});

	test("no execution output holds a token, except the Token > Issue operation's", async () => {
		// What the tests' runs put out.
		const nodesOf = {};
		for (const workflow of Object.values(stack.WORKFLOWS)) {
			nodesOf[workflow.id] = JSON.parse(
				fs.readFileSync(path.join(stack.EXAMPLES_DIR, workflow.file), 'utf8'),
			).nodes;
		}
		for (const workflow of Object.values(TEST_WORKFLOWS))
			nodesOf[workflow.id] = JSON.parse(fs.readFileSync(workflow.file, 'utf8')).nodes;
		for (const [workflowId, runs] of Object.entries(ctx.runs)) {
			for (const run of runs) {
				const scanned = JSON.stringify({
					...run,
					data: {
						...run.data,
						resultData: runDataWithoutIssueToken(run.data.resultData, nodesOf[workflowId]),
					},
				});
				expect({ workflowId, leaks: leaks(scanned) }).toEqual({ workflowId, leaks: [] });
			}
		}

		// What n8n stored: every execution, including the contact-form ones started by the site.
		const { parse } = require(path.join(runtime.RUNTIME_MODULES, 'flatted'));
		const db = openN8nDatabase();
		let rows;
		try {
			rows = db
				.prepare(
					'SELECT e.id, e.workflowId, e.mode, d.data, d.workflowData FROM execution_entity e JOIN execution_data d ON d.executionId = e.id',
				)
				.all();
		} finally {
			db.close();
		}
		expect(rows.length).toBeGreaterThanOrEqual(6);
		// The site's delivery and the new submission delivered 30 times at once: one execution each.
		expect(
			rows.filter(
				(row) => row.workflowId === stack.WORKFLOWS.contactForm.id && row.mode === 'webhook',
			),
		).toHaveLength(2);
		let issueTokenOutputs = 0;
		for (const row of rows) {
			const data = parse(row.data);
			const workflowData = JSON.parse(row.workflowData);
			const withoutIssue = runDataWithoutIssueToken(data.resultData, workflowData.nodes);
			if (
				Object.keys(withoutIssue.runData).length !==
				Object.keys(data.resultData.runData ?? {}).length
			)
				issueTokenOutputs += 1;
			const scanned = JSON.stringify({ ...data, resultData: withoutIssue });
			expect({ execution: row.id, workflow: row.workflowId, leaks: leaks(scanned) }).toEqual({
				execution: row.id,
				workflow: row.workflowId,
				leaks: [],
			});
		}
		// The admin operations had one Token > Issue output, and only those (the onboarding needs no token).
		expect(issueTokenOutputs).toBe(1);
	});
});
