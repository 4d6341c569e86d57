'use strict';
/**
 * Listening for a test event in a real n8n (n8n-runtime/, 2.x) while the workflow is published: the
 * editor's "Execute step" / "Test this trigger" (POST /rest/workflows/:id/run with the trigger to
 * start from, as the editor sends it) must not cost the published workflow a single submission, and
 * must leave no secret in the workflow's static data.
 *
 * Its own stack: a reference server (in memory), an n8n user folder with this package staged, one
 * Tenant API credential and one workflow (Contact Form Trigger -> No Op), published and served by
 * `n8n start`.
 */
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const processes = require('../../scripts/lib/process');
const stack = require('../../scripts/lib/stack');
const { contactFormTriggerWorkflow } = require('../../scripts/lib/trigger-workflows');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('n8n listening e2e');

const TENANT = 'listening';
const WORKFLOW_ID = 'e2eListening0001';
const CREDENTIAL = { id: 'e2eListenTenant1', name: 'Tenant (listening)', type: 'siteTenantApi' };
const TRIGGER = 'Contact form';
const N8N_1 = path.basename(require('../../scripts/lib/runtime').RUNTIME_DIR) === 'n8n1-runtime';

const ctx = {};

const n8nDatabase = () => stack.openN8nDatabase(ctx.userFolder);

/** Executions of the workflow by mode ('webhook': the published workflow; 'manual': test runs). */
function executions() {
	const db = n8nDatabase();
	try {
		const rows = db
			.prepare(
				'SELECT mode, COUNT(*) AS n FROM execution_entity WHERE workflowId = ? GROUP BY mode',
			)
			.all(WORKFLOW_ID);
		return Object.fromEntries(rows.map((row) => [row.mode, row.n]));
	} finally {
		db.close();
	}
}

function storedStaticData() {
	const db = n8nDatabase();
	try {
		return db.prepare('SELECT staticData FROM workflow_entity WHERE id = ?').get(WORKFLOW_ID)
			.staticData;
	} finally {
		db.close();
	}
}

/** The editor's REST calls, with the owner's cookie. */
async function rest(method, urlPath, body) {
	const response = await fetch(`${ctx.n8nUrl}/rest${urlPath}`, {
		method,
		headers: {
			'content-type': 'application/json',
			cookie: ctx.cookie,
			'browser-id': 'site-management-start',
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, data: text ? JSON.parse(text) : undefined };
}

/** "Execute step" on the trigger: n8n registers the test webhook and waits for an event. */
async function listen() {
	// n8n 1.x runs the workflow the editor sends (workflowData); n8n 2.x reads the stored one.
	const workflowData = N8N_1
		? (await rest('GET', `/workflows/${WORKFLOW_ID}`)).data.data
		: undefined;
	const answer = await rest('POST', `/workflows/${WORKFLOW_ID}/run`, {
		...(workflowData ? { workflowData } : {}),
		triggerToStartFrom: { name: TRIGGER },
	});
	expect(answer.status).toBe(200);
	expect(answer.data.data).toEqual({ waitingForWebhook: true });
}

const settings = async () => (await ctx.site('GET', '/api/settings')).data.settings;
const testWebhooks = async () =>
	(await ctx.site('GET', '/api/contact-form/test-webhooks')).data.data;

async function submitMany(count, label) {
	const answers = await Promise.all(
		Array.from({ length: count }, (_, n) =>
			ctx.public('POST', `/forms/${TENANT}/contact`, { message: `${label} ${n}` }),
		),
	);
	expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(202));
	return answers.map((answer) => answer.data.submission_id);
}

/** On a timeout: every delivery of the tenant, each attempt the server logged, n8n's log tail. */
const explainDeliveries = () =>
	e2eStack.deliveryReport({ server: ctx.server, site: ctx.site, userFolder: ctx.userFolder });

async function waitForDelivered(ids) {
	await stack.waitFor(
		`${ids.length} deliveries to be delivered`,
		async () => {
			const listed = (await ctx.site('GET', '/api/contact-form/deliveries?per_page=100')).data.data;
			return ids.every((id) =>
				listed.some((delivery) => delivery.submission_id === id && delivery.state === 'delivered'),
			);
		},
		{ explain: explainDeliveries },
	);
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer({
		deliveryRetryBaseMs: 200,
		// n8n runs beside the server: its webhook URLs are on loopback.
		webhookAllow: 'loopback',
	});
	ctx.public = stack.siteClient(ctx.server.url);
	const { token, client } = await e2eStack.addTenant(ctx.server, TENANT);
	ctx.site = client;

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-listening-'));
	await e2eStack.importFixtures(ctx, {
		credentials: [{ ...CREDENTIAL, data: { baseUrl: ctx.server.url, token } }],
		workflows: [contactFormTriggerWorkflow({ id: WORKFLOW_ID, credential: CREDENTIAL })],
		folder: 'listening-workflows',
	});
	await e2eStack.publish(ctx, WORKFLOW_ID);
	ctx.cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'listening');
	ctx.production = await stack.waitFor(
		'the published trigger to register',
		async () => {
			const current = await settings();
			return current.contact_form_webhook_url ? current : undefined;
		},
		{ timeoutMs: 90000, everyMs: 500 },
	);
	ctx.productionSecret = Object.values(ctx.production.contact_form_webhook_headers)[0];
	say(`n8n on ${ctx.n8nUrl}, published trigger registered`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

describe('listening for a test event while the workflow is published', () => {
	test('10 submissions while the editor listens: 10 executions of the published workflow, and the test run gets its event', async () => {
		await listen();
		const listening = await testWebhooks();
		expect(listening.map((webhook) => webhook.url)).toEqual([
			expect.stringMatching(new RegExp(`^${ctx.n8nUrl}/webhook-test/`)),
		]);
		// The live setting is untouched: same URL, same secret.
		expect(await settings()).toEqual(ctx.production);

		const ids = await submitMany(10, 'during the test');
		await waitForDelivered(ids);
		await stack.waitFor(
			'10 executions of the published workflow and the test run',
			async () => {
				const counts = executions();
				return (counts.webhook ?? 0) >= 10 && (counts.manual ?? 0) >= 1 ? counts : undefined;
			},
			{ timeoutMs: 60000, everyMs: 500 },
		);
		// The test run ends with its first event; n8n then removes the test webhook.
		await stack.waitFor('the test webhook to be removed', async () =>
			(await testWebhooks()).length === 0 ? true : undefined,
		);
		await processes.sleep(2000);
		const counts = executions();
		ctx.manualRuns = counts.manual;
		say(`executions after 10 submissions while listening: ${JSON.stringify(counts)}`);
		expect(counts.webhook).toBe(10);
		// Copies that reach n8n before it takes the test webhook down each start a test run (as any
		// webhook trigger's would); none is taken from the published workflow.
		expect(counts.manual).toBeGreaterThanOrEqual(1);
		expect(counts.manual).toBeLessThanOrEqual(10);
		expect(await settings()).toEqual(ctx.production);
	});

	test('listening stopped without an event (the editor stops it): the test webhook goes, the published workflow keeps receiving', async () => {
		await listen();
		expect(await testWebhooks()).toHaveLength(1);
		const stopped = await rest('DELETE', `/test-webhook/${WORKFLOW_ID}`);
		expect(stopped.status).toBe(200);
		await stack.waitFor('the test webhook to be removed', async () =>
			(await testWebhooks()).length === 0 ? true : undefined,
		);
		const before = executions();
		const ids = await submitMany(3, 'after the test');
		await waitForDelivered(ids);
		await stack.waitFor(
			'3 more executions of the published workflow',
			async () => (executions().webhook === before.webhook + 3 ? true : undefined),
			{ explain: explainDeliveries },
		);
		expect(executions().manual).toBe(before.manual);
		expect(await settings()).toEqual(ctx.production);
	});

	test("the workflow's stored static data holds no secret, and no displaced setting", async () => {
		const stored = JSON.stringify(storedStaticData() ?? '');
		expect(stored).not.toContain(ctx.productionSecret);
		expect(stored).not.toContain('replaced');
	});
});
