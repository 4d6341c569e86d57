'use strict';
/**
 * The fleet rollout example (examples/fleet-rollout.json) as a user runs it, in a stock n8n
 * (`n8n start`, n8n's defaults; e2e/n8n/lib/stock-stack.js) against the reference server, its list of
 * sites replaced by three: two that exist and one that does not yet. On n8n 2.x the workflow creates
 * its Data Table; on n8n 1.x (SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime) the test does what
 * docs/fleet-rollout.md tells a 1.x user: it creates the table (through n8n's REST API, as the
 * editor's Data tables tab does), deletes the Rollout state node and points the Data Table nodes at it.
 *
 * - Rejected: the request names what would change on each site; the reject link ends the run with
 *   every site skipped and no setting changed.
 * - Approved, with rollout-b edited by hand after the preview: rollout-a is applied, rollout-b fails
 *   (Only If Unchanged: the edit stays), the missing one fails with its reason, one report row each.
 * - The missing site created (the cause fixed), the next run previews and applies the two failed
 *   sites alone: the Data Table the example keeps remembered which sites were applied.
 * - Not approved: a copy whose Wait node gives up after seconds instead of 7 days, on two sites of
 *   its own, is left alone until it runs out: every site skipped with that reason, nothing changed;
 *   the next run asks about the same sites, and its resume URL opened without a decision skips them
 *   again, saying so.
 */
const fs = require('node:fs');
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const { RUNTIME } = require('../../scripts/lib/runtime');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const { restClient } = require('../../scripts/lib/rest');
const e2eStack = require('./lib/stack');
const { stockEnv } = require('./lib/stock-stack');
const { decide, runToApproval } = require('./lib/approval');

const say = e2eStack.progressLog('n8n fleet rollout');

const EXAMPLE = path.join(stack.EXAMPLES_DIR, 'fleet-rollout.json');
const ROLLOUT = 'analytics-code-e2e';
const SITES = [
	{ tenant: 'rollout-a', googleCode: 'G-ROLLOUTA1' },
	{ tenant: 'rollout-b', googleCode: 'G-ROLLOUTB1' },
	// Not created before the first run: the site that fails.
	{ tenant: 'rollout-c', googleCode: 'G-ROLLOUTC1' },
];
const BEFORE = 'G-BEFORE0001';
/** rollout-b's value set by hand after the first approved run's preview. */
const HUMAN_EDIT = 'G-HUMAN0002';
/** The rollout nobody approves: its own name and sites, so the other tests' changes stay apart. */
const UNAPPROVED = {
	rollout: 'analytics-code-e2e-unapproved',
	sites: [
		{ tenant: 'rollout-u1', googleCode: 'G-UNAPPROVED1' },
		{ tenant: 'rollout-u2', googleCode: 'G-UNAPPROVED2' },
	],
	// The second run's link must be opened before its wait runs out: that takes a few seconds (on
	// n8n 1.x up to 5 more, see runToApproval), so 30 s leaves a loaded machine room. Still short next
	// to n8n's minute (below): the first run runs out well within its test's 150 s.
	waitSeconds: 30,
};

/**
 * The shipped example, its rollout and list of sites replaced by the test's; with `tableId`, set up
 * for n8n 1.x: no Rollout state node, the Data Table nodes on that table. With `waitSeconds`, the
 * approval's limit (7 days) is cut to that many seconds.
 */
function rolloutExample(tableId, { rollout = ROLLOUT, sites = SITES, waitSeconds } = {}) {
	const example = JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
	const list = example.nodes.find((node) => node.name === 'Rollout');
	list.parameters.jsonOutput = JSON.stringify({ rollout, sites });
	if (waitSeconds !== undefined) {
		// A test-side edit of the copy: the example waits 7 days for a decision; the test cannot.
		const wait = example.nodes.find((node) => node.name === 'Wait for approval');
		expect(wait.parameters).toMatchObject({ resumeAmount: 7, resumeUnit: 'days' });
		Object.assign(wait.parameters, { resumeAmount: waitSeconds, resumeUnit: 'seconds' });
	}
	if (tableId === undefined) return example;
	example.nodes = example.nodes.filter((node) => node.name !== 'Rollout state');
	for (const node of example.nodes)
		if (node.parameters.dataTableId)
			node.parameters.dataTableId = { __rl: true, mode: 'id', value: tableId };
	delete example.connections['Rollout state'];
	example.connections.Start.main[0][0].node = 'Rollout';
	return example;
}

/** The table a 1.x user creates under Overview > Data tables, the way the editor creates it. */
async function createTable(rest) {
	const project = await rest.call('GET', '/projects/personal');
	const table = await rest.call('POST', `/projects/${project.id}/data-tables`, {
		name: 'fleet-rollout',
		columns: ['rollout', 'tenant', 'status', 'detail'].map((name) => ({ name, type: 'string' })),
	});
	return table.id;
}

const ctx = { clients: {} };

async function addSite(tenant) {
	const { client } = await e2eStack.addTenant(ctx.server, tenant);
	expect((await client('POST', '/api/settings', { google_code: BEFORE })).status).toBe(200);
	ctx.clients[tenant] = client;
}

const googleCode = async (tenant) =>
	(await ctx.clients[tenant]('GET', '/api/settings')).data.settings.google_code;

/**
 * Imports a workflow as the editor's import creates it (n8n 1.x gives it a new ID, and needs
 * `active`), naming the credential by the ID n8n gave it.
 */
const importWorkflow = async (workflow) =>
	(
		await ctx.rest.call('POST', '/workflows', {
			...e2eStack.withCredentialIds(ctx, workflow),
			active: false,
		})
	).id;

/** An ended run is read once it shows its report (waitForExecution's withNode). */
const REPORTED = { withNode: 'Per-site report' };

const report = (run) =>
	n8nCommands
		.nodeItems(run, 'Per-site report')
		.map(({ rollout, tenant, status, detail }) => ({ rollout, tenant, status, detail }));

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	for (const { tenant } of [...SITES.slice(0, 2), ...UNAPPROVED.sites]) await addSite(tenant);

	Object.assign(
		ctx,
		await e2eStack.prepareN8nFolder('site-n8n-rollout-', {
			envOf: stockEnv,
			editor: true,
		}),
	);
	ctx.n8n = await e2eStack.startN8nIn(ctx);
	ctx.rest = await restClient(ctx.n8nUrl, {
		email: 'owner@rollout.example.com',
		firstName: 'Rollout',
		lastName: 'Owner',
		password: `Rollout-${Date.now()}-owner`,
	});
	// Saved as the editor saves it (the workflows are created through the REST API on both majors).
	await e2eStack.createCredentials(
		ctx,
		stack
			.credentialsFor({ serverUrl: ctx.server.url, adminToken: ctx.server.adminToken })
			.filter((credential) => credential.id === stack.CREDENTIALS.managedEverySite.id),
	);
	const tableId = RUNTIME.dataTableNodeCreatesTables ? undefined : await createTable(ctx.rest);
	ctx.workflowId = await importWorkflow(rolloutExample(tableId));
	ctx.unapprovedId = await importWorkflow({
		...rolloutExample(tableId, UNAPPROVED),
		id: 'e2eRolloutUnappr',
		name: 'fleet rollout, not approved',
	});
	// n8n resumes a wait that ran out only when it next looks for such waits, once a minute: the
	// unapproved run starts now and runs out while the other tests run (its table then exists).
	ctx.unapproved = await runToApproval(ctx.rest, ctx.unapprovedId);
	say(`stack ready: server ${ctx.server.url}, n8n ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

test('rejected: the request shows each site, and the run ends with every site skipped, nothing changed', async () => {
	const waiting = await runToApproval(ctx.rest, ctx.workflowId);
	expect(waiting.request.message).toMatch(
		new RegExp(
			`^Rollout ${ROLLOUT} on 3 site\\(s\\): rollout-a: ${BEFORE} -> G-ROLLOUTA1; rollout-b: ${BEFORE} -> G-ROLLOUTB1; rollout-c: cannot be changed: .+\\. Approve: \\S+decision=approve Reject: \\S+decision=reject$`,
		),
	);
	expect(n8nCommands.nodeItems(waiting.run, 'Preview (dry run)')).toHaveLength(3);

	const ended = await decide(ctx.rest, waiting, 'reject', REPORTED);
	expect(ended.status).toBe('success');
	expect(ended.run.data.resultData.runData.Apply).toBeUndefined();
	expect(report(ended.run)).toEqual(
		SITES.map(({ tenant }) => ({
			rollout: ROLLOUT,
			tenant,
			status: 'skipped',
			detail: 'rejected: nothing was changed',
		})),
	);
	expect(await googleCode('rollout-a')).toBe(BEFORE);
	expect(await googleCode('rollout-b')).toBe(BEFORE);
});

test('approved: the sites that exist are applied, the missing one fails with its reason, and a site edited after the preview is not overwritten', async () => {
	const waiting = await runToApproval(ctx.rest, ctx.workflowId);
	// Someone changes rollout-b by hand while the approval waits: the approver saw BEFORE there.
	expect(
		(await ctx.clients['rollout-b']('POST', '/api/settings', { google_code: HUMAN_EDIT })).status,
	).toBe(200);
	const ended = await decide(ctx.rest, waiting, 'approve', REPORTED);
	expect(ended.status).toBe('success');

	const rows = report(ended.run);
	expect(rows).toEqual([
		{
			rollout: ROLLOUT,
			tenant: 'rollout-a',
			status: 'applied',
			detail: `google_code G-ROLLOUTA1 (was ${BEFORE})`,
		},
		{
			rollout: ROLLOUT,
			tenant: 'rollout-b',
			status: 'failed',
			detail: `Only If Unchanged: google_code is "${HUMAN_EDIT}" on the site, not the previewed "${BEFORE}"; nothing was written`,
		},
		{ rollout: ROLLOUT, tenant: 'rollout-c', status: 'failed', detail: expect.any(String) },
	]);
	say(`the missing site's reason: ${rows[2].detail}`);
	expect(rows[2].detail).toMatch(/rollout-c/);
	expect(await googleCode('rollout-a')).toBe('G-ROLLOUTA1');
	expect(await googleCode('rollout-b')).toBe(HUMAN_EDIT);
});

test('the cause fixed, the next run processes only the sites that failed, and applies them', async () => {
	await addSite('rollout-c');
	// A site applied before is not touched again: a change made since on it stays.
	expect(
		(await ctx.clients['rollout-a']('POST', '/api/settings', { google_code: 'G-MANUAL01' })).status,
	).toBe(200);

	const waiting = await runToApproval(ctx.rest, ctx.workflowId);
	expect(n8nCommands.nodeItems(waiting.run, 'Not applied yet').map(({ tenant }) => tenant)).toEqual(
		['rollout-b', 'rollout-c'],
	);
	// The approver now sees the hand edit, and approves over it.
	expect(waiting.request.message).toMatch(
		new RegExp(
			`^Rollout ${ROLLOUT} on 2 site\\(s\\): rollout-b: ${HUMAN_EDIT} -> G-ROLLOUTB1; rollout-c: ${BEFORE} -> G-ROLLOUTC1\\. Approve: `,
		),
	);

	const ended = await decide(ctx.rest, waiting, 'approve', REPORTED);
	expect(ended.status).toBe('success');
	expect(report(ended.run)).toEqual([
		{
			rollout: ROLLOUT,
			tenant: 'rollout-b',
			status: 'applied',
			detail: `google_code G-ROLLOUTB1 (was ${HUMAN_EDIT})`,
		},
		{
			rollout: ROLLOUT,
			tenant: 'rollout-c',
			status: 'applied',
			detail: `google_code G-ROLLOUTC1 (was ${BEFORE})`,
		},
	]);
	expect(await googleCode('rollout-c')).toBe('G-ROLLOUTC1');
	expect(await googleCode('rollout-a')).toBe('G-MANUAL01');
	expect(await googleCode('rollout-b')).toBe('G-ROLLOUTB1');
});

test('every site applied: a further run ends at once, with nothing to preview or approve', async () => {
	const execution = await ctx.rest.runAndWait(ctx.workflowId);
	expect(n8nCommands.nodeItems(execution.run, 'Not applied yet')).toEqual([]);
	expect(execution.run.data.resultData.runData['Preview (dry run)']).toBeUndefined();
});

test('not approved: when the wait runs out, every site is skipped and nothing changed; the next run asks again, and a link without a decision skips them too', async () => {
	const tenants = UNAPPROVED.sites.map(({ tenant }) => tenant);
	const skipped = (detail) =>
		tenants.map((tenant) => ({ rollout: UNAPPROVED.rollout, tenant, status: 'skipped', detail }));
	const expectNothingApplied = async () => {
		for (const tenant of tenants) expect(await googleCode(tenant)).toBe(BEFORE);
	};

	// Nobody opened a link: the run ends once the wait has run out (up to a minute after).
	const ranOut = await ctx.rest.waitForExecution(ctx.unapproved.id, {
		timeoutMs: 150_000,
		...REPORTED,
	});
	expect(ranOut.status).toBe('success');
	expect(ranOut.run.data.resultData.runData.Apply).toBeUndefined();
	expect(report(ranOut.run)).toEqual(
		skipped(`not approved within ${UNAPPROVED.waitSeconds} seconds: nothing was changed`),
	);
	await expectNothingApplied();

	// Not applied, so the next run asks about the same sites again.
	const waiting = await runToApproval(ctx.rest, ctx.unapprovedId);
	expect(n8nCommands.nodeItems(waiting.run, 'Not applied yet').map(({ tenant }) => tenant)).toEqual(
		tenants,
	);
	expect(waiting.request.message).toMatch(
		new RegExp(
			`^Rollout ${UNAPPROVED.rollout} on 2 site\\(s\\): rollout-u1: ${BEFORE} -> G-UNAPPROVED1; rollout-u2: ${BEFORE} -> G-UNAPPROVED2\\. Approve: `,
		),
	);
	// Its resume URL opened without a decision, within the limit: not approved, and not "within 7 days".
	const opened = await decide(ctx.rest, waiting, 'none', REPORTED);
	expect(opened.status).toBe('success');
	expect(opened.run.data.resultData.runData.Apply).toBeUndefined();
	expect(report(opened.run)).toEqual(skipped('not approved (decision: none): nothing was changed'));
	await expectNothingApplied();
});
