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

test('the onboarding example, run twice, creates its pages once and leaves three', async () => {
	const { id } = stack.WORKFLOWS.onboarding;
	const first = ctx[`${id}:first`];
	const second = ctx[`${id}:second`];
	expect(n8nCommands.nodeItems(first, 'Create page').map((page) => page.url)).toEqual([
		'/',
		'/about-us',
		'/contact',
	]);
	// The second run lets no page through to Create page, and still sets the content of all three.
	expect(n8nCommands.nodeItems(second, 'New pages only')).toEqual([]);
	expect(second.data.resultData.runData['Create page']).toBeUndefined();
	expect(n8nCommands.nodeItems(second, 'Set page content')).toHaveLength(3);
	const token = n8nCommands.nodeItems(second, 'Issue tenant token')[0].token;
	const pages = await stack.siteClient(ctx.site.server.url, token)('GET', '/api/pages');
	expect(pages.data.data.map((page) => page.url).sort()).toEqual(['/', '/about-us', '/contact']);
});
