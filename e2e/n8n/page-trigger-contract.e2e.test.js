'use strict';
/**
 * The Site Management Trigger's contract cases (issue 34) in a real n8n: a slow site, an endless
 * sitemap, clocks that disagree, and answers outside the contract. Each case is a workflow of the
 * trigger alone, published in one `n8n start` and polling its own crafted site
 * (test/harness/crafted-site.js, the one the engine tests use) every 10 seconds.
 *
 * The cases run side by side on one timeline (one n8n start, polls every 10 s for all): each case's
 * script changes its site from phase to phase, waiting for n8n's polls (the site logs every sitemap
 * answer), and its test asserts what n8n stored: the executions of its workflow, with their items or
 * their error. A failed poll of an active workflow is an execution with status "error" and the node's
 * error (n8n 2.41 and 1.123 alike: the poll context's `__emitError` → `createErrorExecution`), listed
 * in the editor's Executions like any failed run.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const { restClient } = require('../../scripts/lib/rest');
const stack = require('../../scripts/lib/stack');
const { startCraftedSite } = require('../../test/harness/crafted-site');
const e2eStack = require('./lib/stack');
const { parseFlatted } = require('./lib/run-data');

const say = e2eStack.progressLog('n8n trigger contract');

// Read in beforeAll, not when the file loads: on a fresh clone this file may be the first to run,
// before the runtime is installed (test/scripts/e2e-files-load.test.ts).
const n8nVersion = () =>
	JSON.parse(fs.readFileSync(path.join(runtime.RUNTIME_MODULES, 'n8n', 'package.json'), 'utf8'))
		.version;
// The build's own numbers (npm run test:n8n builds first).
let DIGEST_CELLS;
let MAX_NAME_LENGTH;
const readBuiltLimits = () => {
	({ DIGEST_CELLS } = require(path.join(runtime.ROOT, 'dist/nodes/SitePageTrigger/state.js')));
	({ MAX_NAME_LENGTH } = require(
		path.join(runtime.ROOT, 'dist/nodes/SitePageTrigger/snapshot.js'),
	));
};

const TRIGGER = 'Page changes';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ago = (ms) => new Date(Date.now() - ms).toISOString();
const now = () => ago(0);
// Stamps that stay the same from phase to phase of a case.
const DAY_OLD = ago(DAY);
const HOUR_OLD = ago(HOUR);
const TWO_DAYS_OLD = ago(2 * DAY);
const DAY_AHEAD = ago(-DAY);
const HOME = { url: '/', updated_at: DAY_OLD };

/** The cases: the trigger's Options, and the pages its site has when the workflow is published. */
const CASES = {
	slow: { options: { pollDeadline: 3 }, pages: [HOME] },
	endless: {
		options: { maxAnswerMb: 1, pollDeadline: 60 },
		pages: [HOME],
	},
	future: {
		pages: [
			{ url: '/future', updated_at: DAY_AHEAD },
			{ url: '/a', updated_at: HOUR_OLD },
		],
	},
	late: {
		pages: [
			{ url: '/a', updated_at: HOUR_OLD },
			{ url: '/b', updated_at: HOUR_OLD },
		],
	},
	twice: { pages: [HOME] },
	badTime: { pages: [HOME] },
	longName: { pages: [HOME] },
	backAgain: {
		pages: Array.from({ length: 100 }, (_, i) => ({
			url: `/old/${i}`,
			created_at: TWO_DAYS_OLD,
			updated_at: DAY_OLD,
		})),
	},
};
const KEYS = Object.keys(CASES);
const workflowId = (key) => `e2eTrigContract${KEYS.indexOf(key) + 1}`;
const credentialOf = (key) => ({
	id: `e2eCraftedCred0${KEYS.indexOf(key) + 1}`,
	name: `Crafted site (${key})`,
	type: 'siteTenantApi',
});

const ctx = { sites: {}, outcomes: {} };

function workflowOf(key) {
	const credential = credentialOf(key);
	return {
		id: workflowId(key),
		name: `e2e: trigger contract, ${key}`,
		nodes: [
			{
				parameters: {
					pollTimes: { item: e2eStack.FAST_POLLS },
					authentication: 'tenantToken',
					events: ['pagePublished', 'pageUpdated', 'pageRemoved'],
					options: CASES[key].options ?? {},
				},
				id: crypto.randomUUID(),
				name: TRIGGER,
				type: 'n8n-nodes-site-management.sitePageTrigger',
				typeVersion: 1,
				position: [0, 0],
				credentials: { siteTenantApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {},
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

// ---- what n8n stored ----

/**
 * The ended executions of a case's workflow, oldest first: { status, items (the trigger's output),
 * lines (`event url` of each item), error (the poll's error message) }. n8n 1.x may mark an execution
 * ended a moment before its data is saved: those are left for the next look.
 */
function executionsOf(key) {
	const db = stack.openN8nDatabase(ctx.userFolder);
	try {
		return db
			.prepare(
				`SELECT e.status, d.data FROM execution_entity e
				 JOIN execution_data d ON d.executionId = e.id
				 WHERE e.workflowId = ? AND e.status NOT IN ('new', 'running', 'waiting', 'unknown')
				 ORDER BY CAST(e.id AS INTEGER)`,
			)
			.all(workflowId(key))
			.map((row) => ({ status: row.status, result: parseFlatted(row.data).resultData }))
			.filter(({ result }) => result?.lastNodeExecuted)
			.map(({ status, result }) => {
				const items = (result.runData?.[TRIGGER]?.[0]?.data?.main?.[0] ?? []).map(
					(item) => item.json,
				);
				return {
					status,
					items,
					lines: items.map((item) => `${item.event} ${item.url}`),
					error: result.error?.message,
				};
			});
	} finally {
		db.close();
	}
}

/** The trigger's state in the workflow's static data, as n8n saved it. */
function savedState(key) {
	const db = stack.openN8nDatabase(ctx.userFolder);
	try {
		const { staticData } = db
			.prepare('SELECT staticData FROM workflow_entity WHERE id = ?')
			.get(workflowId(key));
		return JSON.parse(staticData)[`node:${TRIGGER}`].state;
	} finally {
		db.close();
	}
}

// ---- driving a case ----

/** The site serves these pages from now on, generated now (the site's clock is the test's). */
function serve(key, pages) {
	ctx.sites[key].sitemap = { generated_at: now(), pages };
}

/** Resolves to the case's executions once there are `count` (at most 40 s: four polls). */
async function executions(key, count) {
	return await stack.waitFor(
		`execution ${count} of the ${key} case`,
		() => {
			const list = executionsOf(key);
			return list.length >= count ? list : undefined;
		},
		{ timeoutMs: 40_000, everyMs: 500 },
	);
}

/**
 * Waits until a poll that started at `since` or later has had its sitemap answer end (whole or cut
 * off): the case can then change what the next poll sees. Waiting for n8n's execution instead
 * races the next poll on a loaded machine, where n8n can record an execution after the next poll
 * has already read the same answer.
 */
async function answeredSince(key, since) {
	const site = ctx.sites[key];
	await stack.waitFor(
		`a poll of the ${key} case answered`,
		() => site.answers.some((answer) => answer.startedAt >= since && answer.endedAt),
		{ timeoutMs: 30_000, everyMs: 100 },
	);
}

/**
 * Waits for two more polls to start: the first has then had a whole poll interval (10 s) to end and
 * record what it found. Resolves to the case's executions.
 */
async function twoMorePolls(key) {
	const site = ctx.sites[key];
	const after = site.answers.length;
	await stack.waitFor(`two more polls of the ${key} case`, () => site.answers.length >= after + 2, {
		timeoutMs: 30_000,
		everyMs: 200,
	});
	return executionsOf(key);
}

/** The scripts, one a case, run side by side once every workflow is published. */
const SCRIPTS = {
	// A sitemap dripped a byte every 200 ms (two pages: about 40 s) against a 3 s deadline, for two
	// polls; then the site answers at once.
	async slow(key) {
		const site = ctx.sites[key];
		serve(key, [HOME, { url: '/new', updated_at: now() }]);
		site.dripMs = 200;
		// Two polls that reached the site and were dripped (on a loaded machine a poll can also fail at
		// its deadline before its request reaches the site), each failed in n8n.
		await stack.waitFor(
			`two dripped polls of the ${key} case`,
			() => site.answers.filter((answer) => !answer.whole && answer.endedAt).length >= 2,
			{ timeoutMs: 60_000, everyMs: 200 },
		);
		const failedSoFar = executionsOf(key).length;
		site.dripMs = 0;
		await executions(key, Math.max(3, failedSoFar + 1));
		const dripped = site.answers.filter((answer) => !answer.whole);
		return { dripped, executions: await twoMorePolls(key) };
	},

	async endless(key) {
		const site = ctx.sites[key];
		const since = Date.now();
		site.endless = true;
		await answeredSince(key, since);
		site.endless = false;
		serve(key, [HOME, { url: '/new', updated_at: now() }]);
		await executions(key, 2);
		const poured = site.answers.filter((answer) => !answer.whole);
		return { poured, executions: await twoMorePolls(key) };
	},

	// Two real updates of /a while /future stays stamped a day ahead.
	async future(key) {
		const stamps = [];
		for (const count of [1, 2]) {
			stamps.push(now());
			serve(key, [
				{ url: '/future', updated_at: DAY_AHEAD },
				{ url: '/a', updated_at: stamps.at(-1) },
			]);
			await executions(key, count);
		}
		return { stamps, executions: await twoMorePolls(key) };
	},

	// /b's update moves the watermark (saved by n8n with the execution); then a write to /a lands
	// stamped 2 s before it, as a transaction that started before /b's and committed after.
	async late(key) {
		const watermark = now();
		serve(key, [
			{ url: '/a', updated_at: HOUR_OLD },
			{ url: '/b', updated_at: watermark },
		]);
		await executions(key, 1);
		const lateStamp = new Date(Date.parse(watermark) - 2000).toISOString();
		serve(key, [
			{ url: '/a', updated_at: lateStamp },
			{ url: '/b', updated_at: watermark },
		]);
		await executions(key, 2);
		return { watermark, lateStamp, executions: await twoMorePolls(key) };
	},

	async twice(key) {
		const page = { url: '/twice', updated_at: now() };
		const since = Date.now();
		serve(key, [HOME, page, { ...page }]);
		await answeredSince(key, since);
		serve(key, [HOME, page]);
		await executions(key, 2);
		return { executions: await twoMorePolls(key) };
	},

	async badTime(key) {
		const since = Date.now();
		serve(key, [HOME, { url: '/odd', updated_at: 'yesterday' }]);
		await answeredSince(key, since);
		serve(key, [HOME, { url: '/odd', updated_at: now() }]);
		await executions(key, 2);
		return { executions: await twoMorePolls(key) };
	},

	// Published, updated (a new stamp), removed: one poll each.
	async longName(key) {
		const name = 'n'.repeat(70_000);
		for (const count of [1, 2]) {
			serve(key, [HOME, { url: '/long', name, updated_at: now() }]);
			await executions(key, count);
		}
		serve(key, [HOME]);
		await executions(key, 3);
		return { name, executions: await twoMorePolls(key) };
	},

	// In one poll: /old/0 removed, /back back again (created and stamped before the last poll, as a
	// page restored or a draft published in place), and more new pages than the digest can name.
	async backAgain(key) {
		const old = ctx.sites[key].sitemap.pages;
		const fresh = Array.from({ length: DIGEST_CELLS }, (_, i) => ({
			url: `/new/${i}`,
			created_at: now(),
			updated_at: now(),
		}));
		const back = { url: '/back', created_at: TWO_DAYS_OLD, updated_at: DAY_OLD };
		serve(key, [...old.slice(1), back, ...fresh]);
		await executions(key, 1);
		return { fresh: fresh.length, executions: await twoMorePolls(key) };
	},
};

/** A case's outcome: what its script resolved to, or its error thrown in the case's own test. */
async function outcome(key) {
	const settled = await ctx.outcomes[key];
	if (settled.error) throw settled.error;
	return settled.value;
}

/** The executions all succeeded, each with its `event url` lines. */
function expectReported(executions, linesOfEach) {
	expect(executions.map((execution) => [execution.status, execution.lines])).toEqual(
		linesOfEach.map((lines) => ['success', lines]),
	);
}

beforeAll(async () => {
	readBuiltLimits();
	await runtimeInstall.ensureRuntime({ log: say });
	for (const key of KEYS) {
		ctx.sites[key] = await startCraftedSite();
		serve(key, CASES[key].pages);
	}
	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-trigger-contract-'));
	await e2eStack.importFixtures(ctx, {
		credentials: KEYS.map((key) => ({
			...credentialOf(key),
			data: { baseUrl: ctx.sites[key].url, token: 'crafted-token' },
		})),
		workflows: KEYS.map(workflowOf),
		folder: 'contract-workflows',
	});
	ctx.n8n = await e2eStack.startN8nIn(ctx);
	const rest = await restClient(ctx.n8nUrl, {
		email: 'owner@trigger-contract.example.com',
		firstName: 'E2E',
		lastName: 'Owner',
		password: `E2e-${crypto.randomBytes(12).toString('base64url')}`,
	});
	say(`n8n ${n8nVersion()} on ${ctx.n8nUrl}`);
	// Publishing polls once (the trigger remembers where each site stands); then the scripts start.
	for (const key of KEYS) await rest.activateWorkflow(workflowId(key));
	for (const key of KEYS) {
		await stack.waitFor(`the first poll of the ${key} case`, () =>
			ctx.sites[key].answers.some((answer) => answer.whole),
		);
	}
	say('every workflow published and polled once');
	for (const key of KEYS) {
		ctx.outcomes[key] = SCRIPTS[key](key).then(
			(value) => ({ value }),
			(error) => ({ error }),
		);
	}
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	// Every script ends within its waits; the sites close after n8n stops polling them.
	await Promise.all(Object.values(ctx.outcomes));
	await e2eStack.stopStack(ctx);
	await Promise.all(Object.values(ctx.sites).map((site) => site.close()));
});

describe('Site Management Trigger contract in a real n8n', () => {
	test('a sitemap dripped slowly: each poll fails at the 3 s deadline as an error execution, the polls go on, the page comes once', async () => {
		const { dripped: slow, executions } = await outcome('slow');
		// The site drips until the case has seen two failed polls; on a loaded machine n8n may start a
		// third before the case notices, so at least two fail, each at the deadline, then one succeeds.
		const failed = executions.slice(0, -1);
		expect(failed.length).toBeGreaterThanOrEqual(2);
		expect(executions.map((execution) => [execution.status, execution.error])).toEqual([
			...failed.map(() => ['error', 'The site did not answer within the poll deadline (3 s)']),
			['success', undefined],
		]);
		expect(executions.at(-1).lines).toEqual(['pagePublished /new']);
		// n8n hung up on each drip at the deadline, not at the request's Timeout (30 s) or the drip's
		// end (40 s): the error above says the deadline ended the poll; the bound below, two thirds of
		// the nearest wrong answer (timers, which a loaded machine only makes later), stops one that
		// held on. The deadline counts from the poll's start, measured 30-430 ms before its request
		// reached the site and more on a loaded machine, so no lower bound on `held` is safe here;
		// test/nodes/SitePageTrigger/contract.test.ts checks that a poll does not end before its deadline.
		// At least two polls were dripped (the script waits for them); a poll that failed may also have
		// reached the site after its deadline had passed (a loaded machine), and so was dripped nothing.
		expect(slow.length).toBeGreaterThanOrEqual(2);
		expect(slow.length).toBeLessThanOrEqual(failed.length);
		for (const answer of slow) {
			const held = answer.endedAt - answer.startedAt;
			expect(held).toBeLessThan(20_000);
		}
		// The next scheduled poll was not skipped: the first two failed polls came in consecutive
		// 10-second slots of the schedule (FAST_POLLS fires at seconds 0, 10, 20, …), not two slots
		// apart, however late each poll's request reached the site within its slot.
		const slot = (answer) => Math.floor(answer.startedAt / 10_000);
		expect(slot(slow[1]) - slot(slow[0])).toBe(1);
		say(
			`slow site: polls held ${slow.map((a) => a.endedAt - a.startedAt).join(' and ')} ms, ${slow[1].startedAt - slow[0].startedAt} ms apart`,
		);
	});

	test('an endless sitemap: the poll fails on Max Answer Size (1 MB) long before its deadline, as an error execution; then the page comes once', async () => {
		const { poured, executions } = await outcome('endless');
		expect(executions.map((execution) => [execution.status, execution.error])).toEqual([
			['error', 'The answer to POST /api/sitemap is larger than 1 MB; it was not read'],
			['success', undefined],
		]);
		expect(executions[1].lines).toEqual(['pagePublished /new']);
		expect(poured.length).toBeGreaterThanOrEqual(1);
		const held = poured[0].endedAt - poured[0].startedAt;
		expect(poured[0].whole).toBe(false);
		// Reading 1 MB takes well under a second; holding on to the deadline would take 60 s. Half of
		// that is a deadline only.
		expect(held).toBeLessThan(30_000);
		say(`endless sitemap: n8n hung up after ${held} ms (deadline 60 s)`);
	});

	test('a page stamped a day ahead does not hide two later updates of another page, each reported once', async () => {
		const { stamps, executions } = await outcome('future');
		expectReported(executions, [['pageUpdated /a'], ['pageUpdated /a']]);
		expect(executions.map((execution) => execution.items[0].updated_at)).toEqual(stamps);
	});

	test('a write stamped below what the last poll saw is reported once', async () => {
		const { watermark, lateStamp, executions } = await outcome('late');
		expectReported(executions, [['pageUpdated /b'], ['pageUpdated /a']]);
		expect(executions[1].items[0].updated_at).toBe(lateStamp);
		// The watermark n8n saved is /b's stamp: /a's came in below it.
		expect(savedState('late').watermark).toBe(Date.parse(watermark));
		expect(Date.parse(lateStamp)).toBeLessThan(Date.parse(watermark));
	});

	test('a url listed twice: the poll fails naming it, no page reported; listed once, published once', async () => {
		const { executions } = await outcome('twice');
		expect(executions.map((execution) => execution.status)).toEqual(['error', 'success']);
		expect(executions[0].error).toMatch(/lists the url "\/twice" twice/);
		expect(executions[0].items).toEqual([]);
		expect(executions[1].lines).toEqual(['pagePublished /twice']);
	});

	test('an updated_at that is not a time: the poll fails naming the page; a time, published once', async () => {
		const { executions } = await outcome('badTime');
		expect(executions.map((execution) => execution.status)).toEqual(['error', 'success']);
		expect(executions[0].error).toMatch(/page "\/odd" an updated_at that is not a time/);
		expect(executions[1].lines).toEqual(['pagePublished /odd']);
	});

	test('a 70,000-character name: published with the name cut to 1,000, then updated and removed as usual', async () => {
		const { name, executions } = await outcome('longName');
		expectReported(executions, [
			['pagePublished /long'],
			['pageUpdated /long'],
			['pageRemoved /long'],
		]);
		expect(executions[0].items[0].name).toBe(name.slice(0, MAX_NAME_LENGTH));
		expect(MAX_NAME_LENGTH).toBe(1000);
	});

	test('a page back again among more new pages than the digest holds: published once, in the same poll', async () => {
		const { fresh, executions } = await outcome('backAgain');
		expect(executions).toHaveLength(1);
		expect(executions[0].status).toBe('success');
		const { lines } = executions[0];
		expect(lines.filter((line) => line === 'pagePublished /back')).toHaveLength(1);
		expect(lines.filter((line) => line === 'pageRemoved /old/0')).toHaveLength(1);
		expect(lines.filter((line) => line.startsWith('pagePublished /new/'))).toHaveLength(fresh);
		expect(lines).toHaveLength(fresh + 2);
		expect(fresh).toBe(DIGEST_CELLS);
	});
});
