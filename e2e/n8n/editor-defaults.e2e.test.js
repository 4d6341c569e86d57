'use strict';
/**
 * The safe defaults of the Tenant node in a real n8n (tools/n8n-runtime/, one `n8n start` that runs the
 * workflows as the editor does) against the
 * reference server: a Content > Update that comes with empty templates, or is given an empty list
 * (typed or from an expression), never wipes a page; only Clear All Blocks empties it. And n8n
 * refuses to create a Contact Form Secret credential whose secret is too short. One small stack of
 * its own (server, n8n user folder, n8n).
 */
const crypto = require('node:crypto');

const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('n8n defaults');

const TENANT = 'defaults';
const PAGE = '/about-us';
const BLOCKS = [
	{ type: 'heading', text: 'About us' },
	{ type: 'text', body: 'We are a small team.' },
];

/** A manual trigger and one Content > Update on PAGE (node version 1) with `parameters`. */
function contentWorkflow(id, parameters) {
	return {
		id,
		name: `defaults: ${id}`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: `${id}-start`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-content`,
				name: 'Set page content',
				type: 'n8n-nodes-site-management.siteTenant',
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'content',
					operation: 'update',
					url: { __rl: true, mode: 'url', value: PAGE },
					...parameters,
				},
				credentials: {
					siteTenantApi: { id: stack.CREDENTIALS.tenant.id, name: stack.CREDENTIALS.tenant.name },
				},
			},
		],
		connections: { Start: { main: [[{ node: 'Set page content', type: 'main', index: 0 }]] } },
	};
}

const WORKFLOWS = {
	// As it comes: Templates left empty (n8n refuses the required parameter).
	asItComes: contentWorkflow('defaultsEmpty001', {}),
	// An empty list typed in: the node refuses it.
	emptyList: contentWorkflow('defaultsList0001', { templates: '[]' }),
	// An empty list from an expression: refused the same way.
	fromExpression: contentWorkflow('defaultsExpr0001', { templates: '={{ [] }}' }),
	// The page emptied on purpose.
	clearAll: contentWorkflow('defaultsClear001', { clearAllBlocks: true }),
};

const ctx = {};

async function pageBlocks() {
	const listed = await ctx.site('GET', `/api/pages?url=${encodeURIComponent(PAGE)}`);
	return listed.data.data[0].templates;
}

async function resetPage() {
	expect((await ctx.site('PUT', '/api/content', { url: PAGE, templates: BLOCKS })).status).toBe(
		200,
	);
	expect(await pageBlocks()).toEqual(BLOCKS);
}

async function execute(workflow) {
	say(`run ${workflow.id} in n8n`);
	return await ctx.runner.execute(workflow.id);
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	const { token: tenantToken, client } = await e2eStack.addTenant(ctx.server, TENANT);
	ctx.site = client;
	expect(
		(await ctx.site('POST', '/api/page', { name: 'About us', url: PAGE, locale: 'en' })).status,
	).toBe(201);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-defaults-'));
	await e2eStack.importFixtures(ctx, {
		credentials: e2eStack.siteCredentialsOf(ctx.server, tenantToken, ['siteTenantApi']),
		workflows: Object.values(WORKFLOWS),
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'defaults');
	say(`stack ready: server ${ctx.server.url}, n8n ${ctx.n8nUrl}, user folder ${ctx.userFolder}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

describe('Content > Update as it comes wipes nothing', () => {
	test('Templates left empty: n8n does not run the node, the page keeps its blocks', async () => {
		await resetPage();
		// n8n checks required parameters before it starts an execution: the run fails with no
		// run of the node (the editor shows the issue on the node).
		const result = await execute(WORKFLOWS.asItComes);
		expect(result.failed).toBe(true);
		expect(result.run?.data?.resultData?.runData?.['Set page content']).toBeUndefined();
		expect(await pageBlocks()).toEqual(BLOCKS);
	});

	test.each([
		['typed in', 'emptyList'],
		['from an expression', 'fromExpression'],
	])(
		'an empty list %s is refused with the way to clear on purpose; the page keeps its blocks',
		async (_how, workflow) => {
			await resetPage();
			const result = await execute(WORKFLOWS[workflow]);
			expect(result.failed).toBe(true);
			const error = result.run?.data?.resultData?.error;
			expect(error?.message).toBe(
				'Templates is an empty list: that would remove every block of the page',
			);
			expect(error?.description).toMatch(/turn on Clear All Blocks/);
			expect(await pageBlocks()).toEqual(BLOCKS);
		},
	);

	test('Clear All Blocks empties the page on purpose', async () => {
		await resetPage();
		const result = await execute(WORKFLOWS.clearAll);
		expect(result.failed).toBe(false);
		expect(n8nCommands.nodeItems(result.run, 'Set page content')[0]).toMatchObject({
			url: PAGE,
			templates: [],
		});
		expect(await pageBlocks()).toEqual([]);
	});
});

describe('Contact Form Secret credential in n8n (POST /rest/credentials, as the editor saves it)', () => {
	test('a secret under 16 characters is refused when the credential is created; a long one is saved', async () => {
		ctx.n8n = await e2eStack.startN8nIn(ctx);
		const cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'defaults');
		const create = async (secret) => {
			const response = await fetch(`${ctx.n8nUrl}/rest/credentials`, {
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					cookie,
					'browser-id': 'site-management-start',
				},
				body: JSON.stringify({
					name: `secret of ${secret.length}`,
					type: 'siteContactFormSecretApi',
					data: { tenantId: 'demo', headerName: 'X-Site-Webhook-Secret', secret },
				}),
			});
			return { status: response.status, body: await response.json() };
		};

		for (const secret of ['short', 'x'.repeat(15)]) {
			const refused = await create(secret);
			expect(refused.status).toBe(400);
			expect(refused.body.message).toMatch(/atLeast16Characters/);
		}
		const saved = await create(crypto.randomBytes(32).toString('hex'));
		expect(saved.status).toBe(200);
		expect(saved.body.data ?? saved.body).toMatchObject({ type: 'siteContactFormSecretApi' });
	});
});
