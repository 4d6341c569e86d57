'use strict';
/**
 * The Site Management Trigger (polling) in a real n8n: active workflows published and served by
 * `n8n start`, against the reference server, including a 100,000-page site.
 *
 * Fast polls: n8n refuses a Poll Times entry that fires more than once a minute, but takes several
 * entries; six custom crons (`0 * * * * *`, `10 * * * * *`, …) poll every 10 seconds. Activation
 * (every `n8n start`) polls once at once. The example workflow runs as shipped, with only its Poll
 * Times made faster. (`n8n execute` runs a polling trigger in mode "cli", where n8n passes its input
 * through instead of polling: Fetch Test Event is tested in n8n's engine, test/nodes/SitePageTrigger.)
 */
const fs = require('node:fs');
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('n8n page trigger');

const DEMO = 'demo';
const BIG = 'big';
const BIG_PAGES = 100_000;
const BIG_CREDENTIAL = {
	id: 'e2eBigTenantCr01',
	name: 'Site Management Tenant (big)',
	type: 'siteTenantApi',
};
const WORKFLOWS = {
	published: { id: 'e2ePagePublish01' },
	big: { id: 'e2ePageTrigBig01' },
};

const ctx = {};

/** The page-published example as it ships. */
const readExample = () =>
	JSON.parse(
		fs.readFileSync(path.join(stack.EXAMPLES_DIR, stack.WORKFLOWS.pagePublished.file), 'utf8'),
	);

/** The example with faster polls, and a copy of it on the 100,000-page site for every event. */
function deriveWorkflows(example) {
	const trigger = (workflow) =>
		workflow.nodes.find((node) => node.type.endsWith('.sitePageTrigger'));

	const published = structuredClone(example);
	Object.assign(published, {
		id: WORKFLOWS.published.id,
		name: 'e2e: page published (fast polls)',
	});
	trigger(published).parameters.pollTimes = { item: e2eStack.FAST_POLLS };

	// Every event on the 100,000-page site, each change a notification named after it.
	const big = structuredClone(published);
	Object.assign(big, { id: WORKFLOWS.big.id, name: 'e2e: page changes on a 100,000-page site' });
	trigger(big).parameters.events = ['pagePublished', 'pageUpdated', 'pageRemoved'];
	for (const node of big.nodes) {
		if (node.credentials?.siteTenantApi)
			node.credentials = { siteTenantApi: { id: BIG_CREDENTIAL.id, name: BIG_CREDENTIAL.name } };
	}
	const notify = big.nodes.find((node) => node.type.endsWith('.siteTenant'));
	notify.parameters.notificationId = '={{ $json.event }} {{ $json.url }}';
	notify.parameters.message = '={{ $json.event }} {{ $json.url }} at {{ $json.updated_at }}';

	return [published, big];
}

const executionCount = (workflowId) => stack.executionCount(ctx.userFolder, workflowId);

async function notifications(client) {
	const answer = await client('GET', '/api/notifications');
	expect(answer.status).toBe(200);
	return answer.data.data;
}

/** Resident and peak memory of a process (MB), from /proc. */
function memoryOf(pid) {
	const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
	return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function startN8n() {
	ctx.n8n = await e2eStack.startN8nIn(ctx);
	say(`n8n ready on port ${ctx.port}`);
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	ctx.demo = await e2eStack.addTenant(ctx.server, DEMO);
	ctx.big = await e2eStack.addTenant(ctx.server, BIG);
	expect(
		(await ctx.demo.client('POST', '/api/page', { name: 'Home', url: '/', locale: 'en' })).status,
	).toBe(201);

	// 100,000 pages straight into the server's store, one transaction (over HTTP it takes minutes).
	const { store } = ctx.server.app.site;
	const bigTenant = store.tenants.findById(BIG);
	const seeding = Date.now();
	store.db.transaction(() => {
		for (let i = 0; i < BIG_PAGES; i++) {
			store.pages.create(bigTenant.pk, {
				name: `Page ${i}`,
				url: `/pages/${i}`,
				locale: i % 2 ? 'en' : 'de',
				meta_title: null,
				meta_description: null,
				draft: false,
			});
		}
	})();
	say(`${BIG_PAGES} pages seeded in ${Date.now() - seeding} ms`);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-trigger-'));
	await e2eStack.saveCredentials(ctx, [
		...stack.credentialsFor({
			serverUrl: ctx.server.url,
			adminToken: ctx.server.adminToken,
			tenantToken: ctx.demo.token,
		}),
		{ ...BIG_CREDENTIAL, data: { baseUrl: ctx.server.url, token: ctx.big.token } },
	]);
	// One `n8n start` for the file: the workflows created and published in it, as the editor does.
	const example = readExample();
	await e2eStack.createWorkflows(ctx, [example, ...deriveWorkflows(example)]);
	for (const workflow of Object.values(WORKFLOWS)) await e2eStack.publish(ctx, workflow.id);
	await startN8n();
	say('workflows imported and published');
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

describe('Site Management Trigger in a real n8n', () => {
	test('activation remembers where the sites stand and starts nothing', async () => {
		await startN8n();
		ctx.idle = memoryOf(ctx.n8n.process.pid);
		await sleep(25_000);
		expect(executionCount(WORKFLOWS.published.id)).toBe(0);
		expect(executionCount(WORKFLOWS.big.id)).toBe(0);
	});

	test('a page published on the site becomes one notification, reported once', async () => {
		const before = Date.now();
		expect(
			(await ctx.demo.client('POST', '/api/page', { name: 'Launch', url: '/launch', locale: 'en' }))
				.status,
		).toBe(201);
		const notification = await stack.waitFor(
			'the page-published notification',
			async () =>
				(await notifications(ctx.demo.client)).find((n) => n.id === 'page-published-/launch'),
			{ timeoutMs: 60_000, everyMs: 500 },
		);
		expect(notification).toMatchObject({ status: 'success' });
		expect(notification.message).toMatch(/^Page published: Launch \(\/launch, en\)/);
		say(`notified ${Date.now() - before} ms after the page was created`);
		await sleep(22_000);
		expect(executionCount(WORKFLOWS.published.id)).toBe(1);
	});

	test('100,000-page site: a publish, an update and a removal come in one poll, once', async () => {
		const changedAt = Date.now();
		expect(
			(await ctx.big.client('POST', '/api/page', { name: 'New', url: '/new', locale: 'en' }))
				.status,
		).toBe(201);
		expect(
			(await ctx.big.client('PUT', '/api/content', { url: '/pages/7', templates: [] })).status,
		).toBe(200);
		expect((await ctx.big.client('DELETE', '/api/page', { url: '/pages/8' })).status).toBe(200);
		const expected = ['pagePublished /new', 'pageRemoved /pages/8', 'pageUpdated /pages/7'];
		const ids = await stack.waitFor(
			'three notifications on the big site',
			async () => {
				const list = (await notifications(ctx.big.client)).map((n) => n.id).sort();
				return list.length >= 3 ? list : undefined;
			},
			{ timeoutMs: 120_000, everyMs: 500 },
		);
		expect(ids).toEqual(expected);
		const seenMs = Date.now() - changedAt;
		await sleep(25_000);
		expect(executionCount(WORKFLOWS.big.id)).toBe(1);
		expect((await notifications(ctx.big.client)).map((n) => n.id).sort()).toEqual(expected);
		// What n8n saved for the trigger: the digest, not the pages.
		const db = stack.openN8nDatabase(ctx.userFolder);
		let staticData;
		try {
			staticData = db
				.prepare('SELECT staticData FROM workflow_entity WHERE id = ?')
				.get(WORKFLOWS.big.id).staticData;
		} finally {
			db.close();
		}
		const state = JSON.parse(staticData)['node:Page published'].state;
		expect(state.pages).toBe(BIG_PAGES);
		expect(staticData.length).toBeLessThan(40 * 1024);
		expect(staticData).not.toContain('/pages/1');
		const memory = memoryOf(ctx.n8n.process.pid);
		say(
			`100k site: changes notified ${seenMs} ms after they were made (polls every 10 s); n8n RSS ${ctx.idle.rssMb} MB after start, ${memory.rssMb} MB now, peak ${memory.peakMb} MB; static data ${staticData.length} bytes`,
		);
	});

	test('an n8n restart: pages published while n8n was down come once, nothing earlier again', async () => {
		await ctx.n8n.stop();
		ctx.n8n = undefined;
		expect(
			(
				await ctx.demo.client('POST', '/api/page', {
					name: 'While down',
					url: '/while-down',
					locale: 'de',
				})
			).status,
		).toBe(201);
		await startN8n();
		await stack.waitFor(
			'the notification of the page published while n8n was down',
			async () =>
				(await notifications(ctx.demo.client)).find((n) => n.id === 'page-published-/while-down'),
			{ timeoutMs: 60_000, everyMs: 500 },
		);
		await sleep(22_000);
		expect(executionCount(WORKFLOWS.published.id)).toBe(2);
		expect(executionCount(WORKFLOWS.big.id)).toBe(1);
	});
});
