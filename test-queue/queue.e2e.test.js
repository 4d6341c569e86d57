'use strict';
/**
 * The package on n8n's queue mode, with the real parts: Redis and PostgreSQL (Debian's packages, each
 * in a temporary folder on loopback), n8n 2.x from n8n-runtime/ as one main, two workers and two
 * webhook processors with one encryption key, and a round-robin proxy in front of the webhook
 * processors (the site delivers to it). The reference server runs in this process. Workflows run
 * through main's REST API and execute on the workers.
 *
 * Counts are kept modest for a shared 2-core machine where the issue allows: 20 concurrent managed
 * runs and 300 submissions are what the issue asks; the crash test uses 8 submissions.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../scripts/lib/runtime');
const stack = require('../scripts/lib/stack');
const { startAiStandIn } = require('../scripts/lib/ai-stand-in');
const { startRedis, startPostgres } = require('../scripts/lib/queue/services');
const { startQueueN8n } = require('../scripts/lib/queue/n8n');
const { restClient } = require('../scripts/lib/queue/rest');
const { pgClient } = require('../scripts/lib/queue/database');

const { startServer } = require(path.join(runtime.ROOT, 'reference-server', 'dist', 'index.js'));

const started = Date.now();
const say = (message) => process.stderr.write(`[queue +${Math.round((Date.now() - started) / 1000)}s] ${message}\n`);

const TEST_WORKFLOWS = {
	tenantOps: { id: 'e2eTenantOps0001', file: path.join(runtime.ROOT, 'test-n8n', 'workflows', 'tenant-operations.json') },
	managed: { id: 'e2eManagedOps001', file: path.join(runtime.ROOT, 'test-n8n', 'workflows', 'managed-credential.json') },
	ackWhenFinished: { id: 'queueAckFinish01', file: path.join(__dirname, 'workflows', 'ack-when-finished.json') },
};
const CRASH_CREDENTIAL = { id: 'queueCrashTenant', name: 'Site Management Tenant (crash test)', type: 'siteTenantApi' };
const DEMO_TENANT = 'demo';
const CRASH_TENANT = 'crashsite';
const AI_API_KEY = 'ai-stand-in-key-queue';

const ctx = {};
// The managed credential shares a mint in flight among the executions of one process (its design):
// concurrent executions after a revocation mint one token per worker process, not one each.
const WORKERS = 2;
const MANAGED_MINT_BOUND = WORKERS;

/** How many tokens the server has issued for a tenant (its own table: what was minted, whoever asked). */
function tokensIssued(tenantId) {
	return ctx.server.app.site.store.db
		.prepare('SELECT COUNT(*) AS n FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk WHERE tn.id = ?')
		.get(tenantId).n;
}

/** Posts `count` contact-form submissions to the site, `parallel` at a time; resolves with their ids. */
async function submit(tenant, count, parallel = 20) {
	const ids = [];
	let next = 0;
	const one = async () => {
		while (next < count) {
			const index = next++;
			const response = await ctx.public('POST', `/forms/${tenant}/contact`, { name: `Visitor ${index}`, email: `v${index}@example.com`, message: `message ${index}` });
			expect(response.status).toBe(202);
			ids.push(response.data.submission_id);
		}
	};
	await Promise.all(Array.from({ length: parallel }, one));
	return ids;
}

/** The site's deliveries of a tenant, by submission id. */
async function deliveries(client) {
	const all = [];
	let cursor;
	do {
		const page = (await client('GET', `/api/contact-form/deliveries?per_page=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).data;
		all.push(...page.data);
		cursor = page.next_cursor;
	} while (cursor);
	return all;
}

beforeAll(async () => {
	await runtime.ensureRuntime({ log: say });
	ctx.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-queue-'));
	say(`temporary folder ${ctx.dir}`);
	[ctx.redis, ctx.postgres] = await Promise.all([startRedis(ctx.dir), startPostgres(ctx.dir)]);
	say(`redis on :${ctx.redis.port}, postgres on :${ctx.postgres.port}`);
	ctx.db = await pgClient(ctx.postgres);

	ctx.server = await startServer({
		port: 0,
		memory: true,
		enableVariables: true,
		adminToken: `sat_q${crypto.randomBytes(24).toString('base64url')}`,
		deliveryRetryBaseMs: 200,
	});
	ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
	ctx.public = stack.siteClient(ctx.server.url);
	ctx.ai = await startAiStandIn({ apiKey: AI_API_KEY });

	const tenantToken = async (id) => {
		expect((await ctx.admin('POST', '/api/tenant', { id })).status).toBe(200);
		return (await ctx.admin('POST', '/api/tenant/token', { id })).data.token;
	};
	ctx.demoToken = await tenantToken(DEMO_TENANT);
	ctx.demo = stack.siteClient(ctx.server.url, ctx.demoToken);
	expect((await ctx.demo('POST', '/api/page', { name: 'About us', url: '/about-us', locale: 'en' })).status).toBe(201);
	expect((await ctx.demo('PUT', '/api/content', { url: '/about-us', templates: [{ type: 'text', body: 'We are a small team.' }] })).status).toBe(200);
	ctx.crashToken = await tenantToken(CRASH_TENANT);
	ctx.crash = stack.siteClient(ctx.server.url, ctx.crashToken);

	ctx.owner = { email: 'owner@example.com', firstName: 'Queue', lastName: 'Owner', password: `Queue-${crypto.randomBytes(9).toString('base64url')}-7Q` };
	ctx.n8n = await startQueueN8n({
		dir: ctx.dir,
		redis: ctx.redis,
		postgres: ctx.postgres,
		extraEnv: { SITE_AI_URL: ctx.ai.chatCompletionsUrl, SITE_AI_MODEL: 'stand-in-model' },
		log: say,
		before: async (env) => {
			const userFolder = env.N8N_USER_FOLDER;
			await stack.importCredentials(env, userFolder, [
				...stack.credentialsFor({ serverUrl: ctx.server.url, adminToken: ctx.server.adminToken, tenantToken: ctx.demoToken, aiApiKey: AI_API_KEY }),
				{ ...CRASH_CREDENTIAL, data: { baseUrl: ctx.server.url, token: ctx.crashToken } },
			]);
			const files = [
				...Object.values(stack.WORKFLOWS).map((workflow) => path.join(stack.EXAMPLES_DIR, workflow.file)),
				...Object.values(TEST_WORKFLOWS).map((workflow) => workflow.file),
			];
			await stack.importWorkflows(env, userFolder, files);
			await stack.publishWorkflow(env, stack.WORKFLOWS.contactForm.id);
			await stack.publishWorkflow(env, TEST_WORKFLOWS.ackWhenFinished.id);
			say('credentials and workflows imported, two contact-form workflows published');
		},
	});
	say(`n8n main ${ctx.n8n.mainUrl}, proxy ${ctx.n8n.publicUrl}`);
	ctx.rest = await restClient(ctx.n8n.mainUrl, ctx.owner);
}, 15 * 60 * 1000);

afterAll(async () => {
	await ctx.n8n?.stop();
	await ctx.db?.end();
	await ctx.postgres?.stop();
	await ctx.redis?.stop();
	await ctx.ai?.close();
	await ctx.server?.close();
	if (ctx.dir && !process.env.SITE_QUEUE_KEEP) fs.rmSync(ctx.dir, { recursive: true, force: true });
	say('stopped');
}, 120000);

describe('every node family runs on the workers', () => {
	const onWorker = (executionId) => {
		const worker = ctx.n8n.workerOfExecutions().get(executionId);
		expect(worker).toBeDefined();
		return worker;
	};

	test('tenant onboarding example (Admin node, Tenant node on the managed credential): effect on the server', async () => {
		const execution = await ctx.rest.runAndWait(stack.WORKFLOWS.onboarding.id);
		onWorker(execution.id);
		const token = runtime.nodeItems(execution.run, 'Issue tenant token')[0].token;
		const acme = stack.siteClient(ctx.server.url, token);
		const pages = (await acme('GET', '/api/pages?per_page=10')).data.data.map((page) => page.url).sort();
		expect(pages).toEqual(['/', '/about-us', '/contact']);
		expect((await acme('GET', '/api/settings')).data.settings).toMatchObject({ google_code: 'G-ACME0001' });
	});

	test('asset upload of n8n binary data (database binary mode) and the other Tenant operations', async () => {
		const execution = await ctx.rest.runAndWait(TEST_WORKFLOWS.tenantOps.id);
		onWorker(execution.id);
		const asset = runtime.nodeItems(execution.run, 'Upload asset')[0];
		expect(asset).toMatchObject({ name: 'hello-e2e.txt' });
		const download = await fetch(asset.url);
		expect(await download.text()).toBe('hello asset from n8n');
		expect((await ctx.demo('GET', '/api/settings')).data.settings).toMatchObject({ google_code: 'G-E2E0001' });
	});

	test('AI chain example: page context, model (stand-in), apply proposal', async () => {
		const before = ctx.ai.requests.length;
		const execution = await ctx.rest.runAndWait(stack.WORKFLOWS.aiChain.id);
		onWorker(execution.id);
		expect(ctx.ai.requests.length).toBe(before + 1);
		const page = (await ctx.demo('GET', '/api/pages?url=%2Fabout-us')).data.data[0];
		expect(page.templates[0]).toEqual({ type: 'heading', text: 'About us: rewritten by the AI stand-in' });
	});
});

describe('managed credential across two workers', () => {
	test('20 concurrent executions after a revocation: tokens minted (counted on the server) stay at the design bound; both workers run them', async () => {
		// Revoke what the onboarding minted: every execution's first request now gets 401.
		expect((await ctx.admin('POST', '/api/tenant/token', { id: 'acme', revoke_previous: true })).status).toBe(200);
		const before = tokensIssued('acme');
		const ids = await Promise.all(Array.from({ length: 20 }, () => ctx.rest.runWorkflow(TEST_WORKFLOWS.managed.id)));
		const executions = await Promise.all(ids.map((id) => ctx.rest.waitForExecution(id)));
		expect(executions.map((execution) => execution.status)).toEqual(Array(20).fill('success'));
		const minted = tokensIssued('acme') - before;
		const owners = ctx.n8n.workerOfExecutions();
		const perWorker = [0, 1].map((worker) => ids.filter((id) => owners.get(id) === worker).length);
		say(`20 managed executions: ${minted} tokens minted; per worker ${perWorker.join(' + ')}`);
		ctx.figures = { ...ctx.figures, tokensMinted: minted, managedPerWorker: perWorker };
		expect(perWorker[0] + perWorker[1]).toBe(20);
		expect(Math.min(...perWorker)).toBeGreaterThan(0);
		expect(minted).toBeGreaterThanOrEqual(1);
		expect(minted).toBeLessThanOrEqual(MANAGED_MINT_BOUND);
	});

	test('a token revoked on the server is replaced on the next run', async () => {
		expect((await ctx.admin('POST', '/api/tenant/token', { id: 'acme', revoke_previous: true })).status).toBe(200);
		const before = tokensIssued('acme');
		const execution = await ctx.rest.runAndWait(TEST_WORKFLOWS.managed.id);
		expect(runtime.nodeItems(execution.run, 'List pages (managed)').length).toBeGreaterThanOrEqual(3);
		expect(tokensIssued('acme') - before).toBe(1);
		// And the next run uses the stored replacement: no mint.
		await ctx.rest.runAndWait(TEST_WORKFLOWS.managed.id);
		expect(tokensIssued('acme') - before).toBe(1);
	});
});
