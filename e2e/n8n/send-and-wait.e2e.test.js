'use strict';
/**
 * Notification > Send and Wait for Approval in a real n8n (2.x by default; n8n 1.x with
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime).
 *
 * - The site's owner finds the request among the site's notifications, with an approve and a decline
 *   link (n8n's signed resume URL); the execution waits.
 * - Opening a link shows a page that asks to confirm and decides nothing (a link preview cannot);
 *   confirming answers a page saying what was decided, and the execution goes on with `approved`,
 *   `decision` and `decidedAt`.
 * - With a wait limit reached, the execution goes on with the input items as they came.
 *
 * Its own stack: a reference server (in memory, loopback) and `n8n start`, driven through n8n's REST
 * API as the editor drives it.
 */
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const e2eStack = require('./lib/stack');
const { followLink } = require('./lib/approval');

const say = e2eStack.progressLog('n8n send and wait');

const N8N_1 = path.basename(runtime.RUNTIME_DIR) === 'n8n1-runtime';
const TENANT_NODE = 'n8n-nodes-site-management.siteTenant';
const TENANT = 'saw-harbor';
const CREDENTIAL = { id: 'e2eSendAndWait01', name: 'Tenant (saw-harbor)', type: 'siteTenantApi' };
const WORKFLOWS = { ask: 'e2eSendAndWait01', limited: 'e2eSendAndWait02' };
const ASK = 'Ask the owner';

const ctx = {};

/** Start → Ask the owner (Send and Wait for Approval, `options`) → Done. */
function askWorkflow(id, options) {
	const node = (name, type, parameters, x, extra = {}) =>
		e2eStack.workflowNode({ name, type, typeVersion: 1, parameters, position: [x, 0], ...extra });
	return e2eStack.workflowJson({
		id,
		name: `send and wait ${id}`,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
			node(
				ASK,
				TENANT_NODE,
				{
					authentication: 'tenantToken',
					resource: 'notification',
					operation: 'sendAndWait',
					message: 'An AI proposal for /about-us waits for your approval.',
					approvalOptions: options,
				},
				220,
				{
					webhookId: `5e0d7a11-0c1f-4d7e-9b1e-0000000000${id.slice(-2)}`,
					credentials: e2eStack.credentialRef(CREDENTIAL),
				},
			),
			node('Done', 'n8n-nodes-base.noOp', {}, 440),
		],
		links: [
			['Start', ASK],
			[ASK, 'Done'],
		],
	});
}

/** The request the owner sees for the execution, and its links. */
async function requestOf(executionId) {
	const notifications = (await ctx.tenant.client('GET', '/api/notifications')).data.data;
	const request = notifications.find((entry) => entry.id === `approval-${executionId}`);
	expect(request).toBeDefined();
	return {
		request,
		approve: /Approve: (\S+)/.exec(request.message)?.[1],
		decline: /Decline: (\S+)/.exec(request.message)?.[1],
	};
}

async function waiting(workflowId) {
	const id = await ctx.rest.runWorkflow(workflowId);
	const execution = await ctx.rest.waitForExecution(id, {
		until: ['waiting', 'success', 'error', 'crashed', 'canceled'],
	});
	expect(execution.status).toBe('waiting');
	return id;
}

async function confirm(link) {
	const response = await fetch(link, {
		method: 'POST',
		headers: {
			'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
		},
	});
	return {
		status: response.status,
		text: await response.text(),
		type: response.headers.get('content-type'),
	};
}

async function ended(id) {
	const execution = await ctx.rest.waitForExecution(id, { withNode: 'Done' });
	expect(execution.status).toBe('success');
	return n8nCommands.nodeItems(execution.run, ASK);
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer({ webhookAllow: 'loopback' });
	ctx.tenant = await e2eStack.addTenant(ctx.server, TENANT);
	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-send-and-wait-'));
	await e2eStack.importFixtures(ctx, {
		credentials: [{ ...CREDENTIAL, data: { baseUrl: ctx.server.url, token: ctx.tenant.token } }],
		workflows: [
			askWorkflow(WORKFLOWS.ask, {}),
			askWorkflow(WORKFLOWS.limited, { limitWaitTime: 0.05, limitUnit: 'minutes' }),
		],
		folder: 'send-and-wait-workflows',
	});
	ctx.rest = await e2eStack.siteRest(ctx, 'send-and-wait');
	say(`reference server ${ctx.server.url}, n8n ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await e2eStack.stopStack(ctx);
});

describe(`Send and Wait for Approval in n8n ${N8N_1 ? '1.x' : '2.x'}`, () => {
	test('the owner approves in the site: opening the link decides nothing, confirming goes on with approved', async () => {
		const id = await waiting(WORKFLOWS.ask);
		const { request, approve, decline } = await requestOf(id);
		expect(request).toMatchObject({ status: 'warning' });
		expect(request.message).toMatch(
			/^An AI proposal for \/about-us waits for your approval\.\n\nApprove: http/,
		);
		expect(approve).toContain(ctx.n8nUrl);
		expect(new URL(approve).searchParams.get('approved')).toBe('true');
		expect(new URL(decline).searchParams.get('approved')).toBe('false');

		const opened = await followLink(approve);
		expect(opened.status).toBe(200);
		expect(opened.text).toContain('<form method="post">');
		expect(opened.text).toContain('Approve?');
		expect((await ctx.rest.waitForExecution(id, { until: ['waiting', 'success'] })).status).toBe(
			'waiting',
		);

		const confirmed = await confirm(approve);
		expect(confirmed.status).toBe(200);
		expect(confirmed.type).toMatch(/text\/html/);
		expect(confirmed.text).toContain('your approval was recorded');
		const [decision] = await ended(id);
		expect(decision).toEqual({
			approved: true,
			decision: 'approved',
			decidedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
		});
		// The link has served: the execution no longer waits for it.
		expect((await confirm(decline)).text).not.toContain('your decision was recorded');
	});

	test('the owner declines: the execution goes on with approved false', async () => {
		const id = await waiting(WORKFLOWS.ask);
		const { decline } = await requestOf(id);
		const confirmed = await confirm(decline);
		expect(confirmed.text).toContain('Nothing will be changed');
		const [decision] = await ended(id);
		expect(decision).toMatchObject({ approved: false, decision: 'declined' });
	});

	test('no decision within the limit: the execution goes on with the input, without approved', async () => {
		const id = await waiting(WORKFLOWS.limited);
		await requestOf(id);
		const items = await ended(id);
		expect(items).toHaveLength(1);
		expect(items[0]).not.toHaveProperty('approved');
	});
});
