/**
 * `npm run bench [-- --quick]`: what the nodes cost over raw HTTP, how they scale, and memory under
 * large files. Every row is a ratio of two things measured in this one run against the same
 * reference server on loopback, so machine noise largely cancels. Prints one table and writes
 * bench/results.json. Exits 0 when a goal is missed (that is a finding, not a failure) and non-zero
 * when something errors.
 *
 * Processes: this one runs the n8n engine (the node under test) and the plain-fetch baselines; the
 * reference server, the bare node:http baseline server and the asset uploader run in child processes
 * (lib/children.ts), so a client and its server never share an event loop.
 */
import './env';

import autocannon from 'autocannon';
import { randomBytes, randomUUID } from 'crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { cpus, loadavg, tmpdir, totalmem } from 'os';
import { join } from 'path';
import { once } from 'events';

import type { INodeCredentials } from 'n8n-workflow';

import type { WorkflowRunner } from '../test/harness/workflow-runner';
import { startChild, type Child } from './lib/children';
import { createRunner, tenantCredential } from './lib/n8n';
import { sampleMemory } from './lib/proc';
import { percentile, pool, round, timed } from './lib/stats';

const quick = process.argv.includes('--quick');

const SIZES = quick
	? { createItems: 200, warmItems: 50, slowItems: 80, listPages: 2_000, cannonSeconds: 2, cannonWarmSeconds: 0.5, fileMb: 16, submissions: 200, repeats: 1 }
	: { createItems: 2_000, warmItems: 200, slowItems: 400, listPages: 20_000, cannonSeconds: 10, cannonWarmSeconds: 2, fileMb: 512, submissions: 2_000, repeats: 2 };
const BATCH_SIZE = 8;
/** The batching row is repeated against a server that answers this much later (latency-bound). */
const SLOW_SERVER_DELAY_MS = 5;
const CANNON_CONNECTIONS = 10;
const SUBMIT_CONCURRENCY = 8;
const MEMORY_LIMIT_MB = 64;

interface Row {
	id: string;
	row: string;
	measured: string;
	baseline: string;
	/** measured / baseline (higher is better), or a growth in MB for the memory rows. */
	ratio: number | null;
	goal: string;
	/** null: no goal (figures only). */
	pass: boolean | null;
	figures: Record<string, number | string>;
}

const rows: Row[] = [];
const tmpDirs: string[] = [];
const children: Child[] = [];

function log(message: string) {
	process.stderr.write(`[bench] ${message}\n`);
}

function tempDir(prefix: string) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	tmpDirs.push(dir);
	return dir;
}

// ---------------------------------------------------------------------------------------------
// The reference server and its API, spoken with plain fetch

interface Site {
	child: Child;
	url: string;
	adminToken: string;
	dataDir: string;
}

/** A reference server child; options.dataDir reopens an existing data directory. */
async function startSite(options: Record<string, unknown> = {}, delayMs = 0): Promise<Site> {
	const dataDir = typeof options.dataDir === 'string' ? options.dataDir : tempDir('site-bench-');
	const child = startChild('server-child', {
		BENCH_SERVER_OPTIONS: JSON.stringify({ enableVariables: false, ...options, dataDir }),
		BENCH_SERVER_DELAY_MS: String(delayMs),
	});
	children.push(child);
	const ready = await child.next<{ type: string; url: string; adminToken: string }>('ready', 60_000);
	return { child, url: ready.url, adminToken: ready.adminToken, dataDir };
}

async function stopChild(child: Child) {
	await child.stop();
	children.splice(children.indexOf(child), 1);
}

async function call(base: string, token: string, method: string, path: string, body?: unknown) {
	const response = await fetch(`${base}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${token}`,
			accept: 'application/json',
			...(body !== undefined ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

async function expectStatus(expected: number, pending: ReturnType<typeof call>) {
	const response = await pending;
	if (response.status !== expected) throw new Error(`expected HTTP ${expected}, got ${response.status}: ${response.text.slice(0, 500)}`);
	return response;
}

async function createTenant(site: Site, id: string): Promise<string> {
	await expectStatus(200, call(site.url, site.adminToken, 'POST', '/api/tenant', { id }));
	const issued = await expectStatus(200, call(site.url, site.adminToken, 'POST', '/api/tenant/token', { id }));
	return String(issued.json?.token);
}

// ---------------------------------------------------------------------------------------------
// The node in n8n's engine, and the same requests as a plain loop of fetch calls

const pageItems = (prefix: string, count: number): Array<{ json: { name: string; url: string } }> =>
	Array.from({ length: count }, (_, i) => ({ json: { name: `Page ${prefix} ${i}`, url: `/${prefix}/page-${i}` } }));

/** Page > Create for every item; parameters are expressions over the item, as in a real workflow. */
async function nodeCreatePages(runner: WorkflowRunner, credentials: INodeCredentials, prefix: string, count: number, batchSize = 1) {
	const { result, ms } = await timed(() =>
		runner.runNode({
			type: 'siteTenant',
			parameters: {
				resource: 'page',
				operation: 'create',
				name: '={{ $json.name }}',
				url: '={{ $json.url }}',
				locale: 'en',
				...(batchSize > 1 ? { options: { batching: { batch: { batchSize } } } } : {}),
			},
			credentials,
			input: pageItems(prefix, count),
		}),
	);
	if (result.error) throw result.error;
	if (result.items.length !== count) throw new Error(`node created ${result.items.length} of ${count} pages`);
	return ms;
}

/** The same requests through n8n's own HTTP helper in a bare node (lib/http-baseline.node.ts). */
async function helperCreatePages(runner: WorkflowRunner, credentials: INodeCredentials, prefix: string, count: number) {
	const { result, ms } = await timed(() =>
		runner.runNode({
			type: 'benchHttpBaseline',
			parameters: { name: '={{ $json.name }}', url: '={{ $json.url }}', locale: 'en' },
			credentials,
			input: pageItems(prefix, count),
		}),
	);
	if (result.error) throw result.error;
	if (result.items.length !== count || !(result.items[0].json as { page?: unknown }).page) throw new Error('HTTP baseline node did not create the pages');
	return ms;
}

/**
 * The fair baseline: the same requests one after the other (method, path, JSON body, bearer token,
 * Accept and Content-Type, a fresh Idempotency-Key per item), each answer read and parsed as JSON.
 */
async function fetchCreatePages(base: string, token: string, prefix: string, count: number) {
	const items = pageItems(prefix, count);
	const { ms } = await timed(async () => {
		for (const { json } of items) {
			const response = await fetch(`${base}/api/page`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${token}`,
					accept: 'application/json',
					'content-type': 'application/json',
					'idempotency-key': randomUUID(),
				},
				body: JSON.stringify({ name: json.name, url: json.url, locale: 'en' }),
			});
			const body = (await response.json()) as { page?: unknown };
			if (response.status !== 201 || !body.page) throw new Error(`fetch create: HTTP ${response.status}`);
		}
	});
	return ms;
}

async function nodeListPages(runner: WorkflowRunner, credentials: INodeCredentials, expected: number) {
	const { result, ms } = await timed(() =>
		runner.runNode({ type: 'siteTenant', parameters: { resource: 'page', operation: 'getAll', returnAll: true }, credentials }),
	);
	if (result.error) throw result.error;
	if (result.items.length !== expected) throw new Error(`node listed ${result.items.length} of ${expected} pages`);
	return ms;
}

async function helperListPages(runner: WorkflowRunner, credentials: INodeCredentials, expected: number) {
	const { result, ms } = await timed(() => runner.runNode({ type: 'benchHttpBaseline', parameters: { mode: 'list' }, credentials }));
	if (result.error) throw result.error;
	if (result.items.length !== expected) throw new Error(`HTTP baseline node listed ${result.items.length} of ${expected} pages`);
	return ms;
}

/** Pages of 100 (what the node asks for) until meta.last_page, every page parsed and collected. */
async function fetchListPages(base: string, token: string, expected: number) {
	const { result, ms } = await timed(async () => {
		const pages: unknown[] = [];
		for (let page = 1; ; page++) {
			const response = await fetch(`${base}/api/pages?page=${page}&per_page=100`, {
				headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
			});
			const body = (await response.json()) as { data: unknown[]; meta: { last_page: number } };
			if (response.status !== 200) throw new Error(`fetch list: HTTP ${response.status}`);
			pages.push(...body.data);
			if (page >= body.meta.last_page) return pages;
		}
	});
	if (result.length !== expected) throw new Error(`fetch listed ${result.length} of ${expected} pages`);
	return ms;
}

/**
 * Runs each contestant `repeats` times in ABBA order (A B, then B A) so a drift of the machine's
 * load hits both alike, and keeps each one's best time.
 */
async function bestOf(contestants: Record<string, (round: number) => Promise<number>>, repeats: number) {
	const names = Object.keys(contestants);
	const best: Record<string, number> = {};
	const all: Record<string, number[]> = {};
	for (let r = 0; r < repeats; r++) {
		const order = r % 2 === 0 ? names : [...names].reverse();
		for (const name of order) {
			const ms = await contestants[name](r);
			(all[name] ??= []).push(round(ms, 1));
			best[name] = Math.min(best[name] ?? Infinity, ms);
		}
	}
	return { best, all };
}

// ---------------------------------------------------------------------------------------------
// Rows

async function pageRows(site: Site, runner: WorkflowRunner) {
	const token = await createTenant(site, 'bench-create');
	const credentials = tenantCredential(runner, site.url, token);
	const n = SIZES.createItems;

	log(`Page Create: warm-up (${SIZES.warmItems} items each way)`);
	await nodeCreatePages(runner, credentials, 'warm-node', SIZES.warmItems);
	await nodeCreatePages(runner, credentials, 'warm-batch', SIZES.warmItems, BATCH_SIZE);
	await fetchCreatePages(site.url, token, 'warm-fetch', SIZES.warmItems);
	await helperCreatePages(runner, credentials, 'warm-helper', SIZES.warmItems);

	log(`Page Create: ${n} items, ${SIZES.repeats} round(s) of fetch / node / node batched / n8n HTTP helper`);
	const { best, all } = await bestOf(
		{
			fetch: (r) => fetchCreatePages(site.url, token, `fetch-${r}`, n),
			node: (r) => nodeCreatePages(runner, credentials, `node-${r}`, n),
			helper: (r) => helperCreatePages(runner, credentials, `helper-${r}`, n),
			batched: (r) => nodeCreatePages(runner, credentials, `batched-${r}`, n, BATCH_SIZE),
		},
		SIZES.repeats,
	);
	const perSecond = (ms: number) => (n / ms) * 1000;
	const fetchRate = perSecond(best.fetch);
	const nodeRate = perSecond(best.node);
	const batchedRate = perSecond(best.batched);
	const helperRate = perSecond(best.helper);
	const ratio = nodeRate / fetchRate;
	rows.push({
		id: 'page-create-sequential',
		row: `Page Create, ${n} items, sequential, in n8n's engine`,
		measured: `${round(nodeRate, 0)} items/s`,
		baseline: `fetch loop ${round(fetchRate, 0)} req/s`,
		ratio: round(ratio, 2),
		goal: '>= 0.9',
		pass: ratio >= 0.9,
		figures: {
			items: n,
			nodeMs: round(best.node, 1),
			fetchMs: round(best.fetch, 1),
			n8nHelperMs: round(best.helper, 1),
			n8nHelperItemsPerSecond: round(helperRate, 0),
			nodeVsN8nHelper: round(nodeRate / helperRate, 2),
			nodeRuns: all.node.join(' '),
			fetchRuns: all.fetch.join(' '),
			n8nHelperRuns: all.helper.join(' '),
		},
	});
	const speedup = batchedRate / nodeRate;
	rows.push({
		id: 'page-create-batching-8',
		row: `Page Create, ${n} items, Batching ${BATCH_SIZE} items at once`,
		measured: `${round(batchedRate, 0)} items/s`,
		baseline: `node sequential ${round(nodeRate, 0)} items/s`,
		ratio: round(speedup, 2),
		goal: '>= 2.5x',
		pass: speedup >= 2.5,
		figures: { items: n, batchSize: BATCH_SIZE, batchedMs: round(best.batched, 1), nodeMs: round(best.node, 1), batchedRuns: all.batched.join(' ') },
	});
}

/**
 * The batching row again, against a server that answers SLOW_SERVER_DELAY_MS later: there the
 * sequential node waits on the network, and batching shows how far it overlaps requests when the
 * client's CPU is not the limit (figures only; the goal applies to the loopback row).
 */
async function slowServerBatchingRow(runner: WorkflowRunner) {
	const site = await startSite({}, SLOW_SERVER_DELAY_MS);
	try {
		const token = await createTenant(site, 'bench-slow');
		const credentials = tenantCredential(runner, site.url, token);
		const n = SIZES.slowItems;
		log(`Page Create against a server answering ${SLOW_SERVER_DELAY_MS} ms later: ${n} items, sequential and Batching ${BATCH_SIZE}`);
		await nodeCreatePages(runner, credentials, 'slow-warm', 20, BATCH_SIZE);
		const { best, all } = await bestOf(
			{
				node: (r) => nodeCreatePages(runner, credentials, `slow-node-${r}`, n),
				batched: (r) => nodeCreatePages(runner, credentials, `slow-batched-${r}`, n, BATCH_SIZE),
			},
			SIZES.repeats,
		);
		const nodeRate = (n / best.node) * 1000;
		const batchedRate = (n / best.batched) * 1000;
		rows.push({
			id: 'page-create-batching-8-slow-server',
			row: `Page Create, ${n} items, Batching ${BATCH_SIZE} items at once, server ${SLOW_SERVER_DELAY_MS} ms away`,
			measured: `${round(batchedRate, 0)} items/s`,
			baseline: `node sequential ${round(nodeRate, 0)} items/s`,
			ratio: round(batchedRate / nodeRate, 2),
			goal: 'figures only',
			pass: null,
			figures: { items: n, batchSize: BATCH_SIZE, delayMs: SLOW_SERVER_DELAY_MS, batchedMs: round(best.batched, 1), nodeMs: round(best.node, 1), nodeRuns: all.node.join(' '), batchedRuns: all.batched.join(' ') },
		});
	} finally {
		await stopChild(site.child);
	}
}

async function listRows(site: Site, runner: WorkflowRunner) {
	const token = await createTenant(site, 'bench-list');
	const credentials = tenantCredential(runner, site.url, token);
	const n = SIZES.listPages;
	log(`Page Get Many: seeding ${n} pages`);
	await pool(n, 16, async (i) => {
		await expectStatus(201, call(site.url, token, 'POST', '/api/page', { name: `Listed ${i}`, url: `/listed/${i}`, locale: i % 2 ? 'en' : 'de' }));
	});

	log('Page Get Many: warm-up');
	await nodeListPages(runner, credentials, n);
	await fetchListPages(site.url, token, n);
	await helperListPages(runner, credentials, n);

	log(`Page Get Many: return all over ${n} pages, ${SIZES.repeats} round(s)`);
	const { best, all } = await bestOf(
		{
			fetch: () => fetchListPages(site.url, token, n),
			node: () => nodeListPages(runner, credentials, n),
			helper: () => helperListPages(runner, credentials, n),
		},
		SIZES.repeats,
	);
	const ratio = best.fetch / best.node;
	rows.push({
		id: 'page-get-many',
		row: `Page Get Many, return all, ${n} pages`,
		measured: `${round(best.node, 0)} ms (${round((n / best.node) * 1000, 0)} pages/s)`,
		baseline: `paginating fetch loop ${round(best.fetch, 0)} ms`,
		ratio: round(ratio, 2),
		goal: '>= 0.9',
		pass: ratio >= 0.9,
		figures: {
			pages: n,
			requests: Math.ceil(n / 100),
			nodeMs: round(best.node, 1),
			fetchMs: round(best.fetch, 1),
			n8nHelperMs: round(best.helper, 1),
			nodeVsN8nHelper: round(best.helper / best.node, 2),
			nodeRuns: all.node.join(' '),
			fetchRuns: all.fetch.join(' '),
			n8nHelperRuns: all.helper.join(' '),
		},
	});
	return token;
}

async function cannon(options: autocannon.Options) {
	const result = await autocannon({ connections: CANNON_CONNECTIONS, ...options });
	if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
		throw new Error(`autocannon ${options.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
	}
	return result;
}

async function serverRows(site: Site, listToken: string) {
	const token = await createTenant(site, 'bench-cannon');
	// The fixed answers of the bare server are what the reference server answered to the same requests.
	const created = await expectStatus(201, call(site.url, token, 'POST', '/api/page', { name: 'Captured', url: '/captured', locale: 'en' }));
	const listed = await expectStatus(200, call(site.url, listToken, 'GET', '/api/pages'));
	const bare = startChild('bare-server-child', {
		BENCH_BARE_RESPONSES: JSON.stringify({
			'POST /api/page': { status: 201, body: created.text },
			'GET /api/pages': { status: 200, body: listed.text },
		}),
	});
	children.push(bare);
	const bareUrl = (await bare.next<{ type: string; url: string }>('ready')).url;

	try {
		let counter = 0;
		/** A new page per request (a repeated url is a 409) and a fresh Idempotency-Key, like the node sends. */
		const postRequests = (tokenForPost: string): autocannon.RequestSpec[] => [
			{
				method: 'POST',
				path: '/api/page',
				setupRequest: (request) => {
					const i = counter++;
					return {
						...request,
						headers: {
							authorization: `Bearer ${tokenForPost}`,
							accept: 'application/json',
							'content-type': 'application/json',
							'idempotency-key': randomUUID(),
						},
						body: JSON.stringify({ name: `Cannon ${i}`, url: `/cannon/${i}`, locale: 'en' }),
					};
				},
			},
		];
		const getHeaders = { authorization: `Bearer ${listToken}`, accept: 'application/json' };

		type Cannonade = { rps: number; p99: number; p50: number; total: number };
		const measure = async (label: string, url: string, options: Partial<autocannon.Options>, warm = true): Promise<Cannonade> => {
			log(`autocannon: ${label} (${warm ? `${SIZES.cannonWarmSeconds} s warm-up, ` : ''}${SIZES.cannonSeconds} s measured, ${CANNON_CONNECTIONS} connections)`);
			if (warm) await cannon({ url, duration: SIZES.cannonWarmSeconds, ...options });
			const result = await cannon({ url, duration: SIZES.cannonSeconds, ...options });
			return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, total: result.requests.total };
		};
		/** Reference and bare server in ABBA order over SIZES.repeats rounds; each keeps its best round. */
		const duel = async (kind: string, options: Partial<autocannon.Options>) => {
			const runs: Record<'reference' | 'bare', Cannonade[]> = { reference: [], bare: [] };
			const urls = { reference: site.url, bare: bareUrl };
			for (let r = 0; r < SIZES.repeats; r++) {
				const order = r % 2 === 0 ? (['reference', 'bare'] as const) : (['bare', 'reference'] as const);
				for (const who of order) runs[who].push(await measure(`${who === 'bare' ? 'bare node:http' : 'reference server'} ${kind}`, urls[who], options, r === 0));
			}
			const best = (list: Cannonade[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
			const rpsRuns = (list: Cannonade[]) => list.map((r) => round(r.rps, 0)).join(' ');
			return { reference: best(runs.reference), baseline: best(runs.bare), referenceRuns: rpsRuns(runs.reference), bareRuns: rpsRuns(runs.bare) };
		};

		for (const kind of ['POST /api/page', 'GET /api/pages'] as const) {
			const options: Partial<autocannon.Options> =
				kind === 'POST /api/page' ? { requests: postRequests(token) } : { requests: [{ method: 'GET', path: '/api/pages', headers: getHeaders }] };
			const { reference, baseline, referenceRuns, bareRuns } = await duel(kind, options);
			const ratio = reference.rps / baseline.rps;
			rows.push({
				id: kind === 'POST /api/page' ? 'server-post-page' : 'server-get-pages',
				row: `Reference server ${kind}, autocannon, ${CANNON_CONNECTIONS} connections`,
				measured: `${round(reference.rps, 0)} req/s, p99 ${reference.p99} ms`,
				baseline: `bare node:http ${round(baseline.rps, 0)} req/s, p99 ${baseline.p99} ms`,
				ratio: round(ratio, 2),
				goal: '>= 0.5',
				pass: ratio >= 0.5,
				figures: {
					seconds: SIZES.cannonSeconds,
					referenceRps: round(reference.rps, 0),
					referenceP50Ms: reference.p50,
					referenceP99Ms: reference.p99,
					bareRps: round(baseline.rps, 0),
					bareP50Ms: baseline.p50,
					bareP99Ms: baseline.p99,
					referenceRuns,
					bareRuns,
					...(kind === 'GET /api/pages' ? { tenantPages: SIZES.listPages, responseBytes: listed.text.length } : {}),
				},
			});
		}

		// The GET above is answered from the server's cache of rendered listings (--list-cache-mb): the
		// same page, over and over. The same requests to the same data with the cache off show what a
		// listing costs when it is not cached (figures of the same row, not judged).
		await stopChild(site.child);
		const uncached = await startSite({ dataDir: site.dataDir, listCacheMb: 0 });
		const getOptions: Partial<autocannon.Options> = { requests: [{ method: 'GET', path: '/api/pages', headers: getHeaders }] };
		const cold = await measure('reference server GET /api/pages, listing cache off', uncached.url, getOptions);
		const getRow = rows.find((row) => row.id === 'server-get-pages');
		if (getRow) {
			getRow.figures.uncachedRps = round(cold.rps, 0);
			getRow.figures.uncachedP99Ms = cold.p99;
			getRow.figures.uncachedRatio = round(cold.rps / Number(getRow.figures.bareRps), 2);
			getRow.measured += `; cache off ${round(cold.rps, 0)} req/s (ratio ${round(cold.rps / Number(getRow.figures.bareRps), 2)})`;
		}
		await stopChild(uncached.child);
	} finally {
		await stopChild(bare);
	}
}

/** A file of `mb` megabytes written in 1 MB chunks (never held whole in memory). */
async function writeLargeFile(path: string, mb: number) {
	const chunk = randomBytes(1024 * 1024);
	const out = createWriteStream(path);
	for (let i = 0; i < mb; i++) {
		chunk[0] = i & 0xff; // not one repeated megabyte throughout
		if (!out.write(chunk)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
}

async function assetRows() {
	const mb = SIZES.fileMb;
	// A fresh server for this row, so its memory is not that of the earlier rows' work.
	const site = await startSite({ maxUploadMb: mb + 1 });
	const uploader = startChild('asset-child');
	children.push(uploader);
	try {
		const token = await createTenant(site, 'bench-assets');
		const file = join(tempDir('bench-file-'), 'large.bin');
		log(`Asset Upload: writing a ${mb} MB file`);
		await writeLargeFile(file, mb);

		uploader.send({ type: 'start', baseUrl: site.url, token, filePath: file });
		await uploader.next('ready', 120_000);
		// Let both processes settle before the baseline is read.
		await new Promise((resolve) => setTimeout(resolve, 500));
		log(`Asset Upload: ${mb} MB, streamed from n8n's binary store on disk`);
		const sampler = sampleMemory([uploader.pid, site.child.pid]);
		uploader.send({ type: 'go' });
		const done = await uploader.next<{ type: string; ms: number; output: { size?: number } | null }>('done', 15 * 60_000);
		const [node, server] = sampler.stop();
		if (done.output?.size !== mb * 1024 * 1024) throw new Error(`upload stored ${done.output?.size} bytes, expected ${mb * 1024 * 1024}`);
		rmSync(file, { force: true });

		const rate = `${round(mb / (done.ms / 1000), 0)} MB/s`;
		for (const [id, label, memory] of [
			['asset-upload-node-rss', "node's process (n8n engine)", node],
			['asset-upload-server-rss', 'reference server process', server],
		] as const) {
			rows.push({
				id,
				row: `Asset Upload, ${mb} MB binary on disk: RSS growth of the ${label}`,
				measured: `+${round(memory.growthMb, 1)} MB (peak ${round(memory.peakMb, 0)} MB)`,
				baseline: `RSS before: ${round(memory.baselineMb, 0)} MB`,
				ratio: round(memory.growthMb, 1),
				goal: `< ${MEMORY_LIMIT_MB} MB`,
				pass: memory.growthMb < MEMORY_LIMIT_MB,
				figures: { fileMb: mb, uploadMs: done.ms, throughput: rate, baselineMb: round(memory.baselineMb, 1), peakMb: round(memory.peakMb, 1), growthMb: round(memory.growthMb, 1) },
			});
		}
	} finally {
		await stopChild(uploader);
		await stopChild(site.child);
	}
}

async function contactFormRow(site: Site) {
	const n = SIZES.submissions;
	const sentAt = new Map<number, number>();
	const receivedAt = new Map<number, number>();
	let duplicates = 0;
	let allReceived!: () => void;
	const everything = new Promise<void>((resolve) => (allReceived = resolve));

	// The local receiver: records when each submission arrives and answers 200 at once.
	const receiver: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const now = performance.now();
			const seq = Number((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { fields: { seq: number } }).fields.seq);
			if (receivedAt.has(seq)) duplicates++;
			else receivedAt.set(seq, now);
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			if (receivedAt.size === n) allReceived();
		});
	});
	receiver.listen(0, '127.0.0.1');
	await once(receiver, 'listening');
	const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

	try {
		const token = await createTenant(site, 'bench-forms');
		await expectStatus(200, call(site.url, token, 'POST', '/api/settings', { contact_form_webhook_url: hook, contact_form_webhook_headers: { 'X-Bench-Secret': 'bench' } }));

		log(`Contact form: ${n} submissions, ${SUBMIT_CONCURRENCY} at a time, delivered to a local receiver`);
		const started = performance.now();
		await pool(n, SUBMIT_CONCURRENCY, async (seq) => {
			sentAt.set(seq, performance.now());
			const response = await fetch(`${site.url}/forms/bench-forms/contact`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ seq, name: `Sender ${seq}`, email: `sender${seq}@example.com`, message: 'Hello from the benchmark.' }),
			});
			await response.arrayBuffer();
			if (response.status !== 202) throw new Error(`contact form: HTTP ${response.status}`);
		});
		const submitted = performance.now();
		const timeout = new Promise<never>((_, reject) =>
			setTimeout(() => reject(new Error(`contact form: ${receivedAt.size} of ${n} delivered within 120 s`)), 120_000).unref(),
		);
		await Promise.race([everything, timeout]);
		const finished = Math.max(...receivedAt.values());
		const latencies = [...receivedAt].map(([seq, at]) => at - sentAt.get(seq)!);
		const perSecond = (n / (finished - started)) * 1000;
		rows.push({
			id: 'contact-form-delivery',
			row: `Contact-form delivery, ${n} submissions to a local receiver`,
			measured: `${round(perSecond, 0)} submissions/s delivered`,
			baseline: `submission to receipt p50 ${round(percentile(latencies, 50), 1)} ms, p99 ${round(percentile(latencies, 99), 1)} ms`,
			ratio: null,
			goal: 'figures only',
			pass: null,
			figures: {
				submissions: n,
				deliveredPerSecond: round(perSecond, 0),
				acceptedPerSecond: round((n / (submitted - started)) * 1000, 0),
				p50Ms: round(percentile(latencies, 50), 1),
				p99Ms: round(percentile(latencies, 99), 1),
				maxMs: round(Math.max(...latencies), 1),
				duplicates,
			},
		});
	} finally {
		receiver.closeAllConnections();
		receiver.close();
	}
}

// ---------------------------------------------------------------------------------------------
// Output

function machine() {
	const info = cpus();
	let model = info[0]?.model ?? 'unknown';
	try {
		model = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? model;
	} catch {
		// not Linux
	}
	return { cpus: info.length, model, memoryGb: round(totalmem() / 1024 ** 3, 1), node: process.version, platform: `${process.platform} ${process.arch}` };
}

function printTable(list: Row[]) {
	const header = ['Row', 'Measured', 'Baseline', 'Ratio', 'Goal', 'Result'];
	const cells = list.map((r) => [r.row, r.measured, r.baseline, r.ratio === null ? '-' : String(r.ratio), r.goal, r.pass === null ? 'info' : r.pass ? 'PASS' : 'MISS']);
	const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
	const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
	process.stdout.write(
		[line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n') + '\n',
	);
}

async function main() {
	const startedAt = new Date();
	const loadBefore = loadavg();
	log(`${quick ? 'quick' : 'full'} run on ${machine().cpus} CPUs, load average ${loadBefore.map((l) => round(l, 2)).join(' ')}`);
	const runner = createRunner();
	const site = await startSite({ deliveryRetryBaseMs: 100 });

	await pageRows(site, runner);
	await slowServerBatchingRow(runner);
	const listToken = await listRows(site, runner);
	await contactFormRow(site);
	// Last user of the site: it ends with the site restarted without its listing cache.
	await serverRows(site, listToken);
	await assetRows();

	const loadAfter = loadavg();
	printTable(rows);
	const results = {
		mode: quick ? 'quick' : 'full',
		startedAt: startedAt.toISOString(),
		seconds: round((Date.now() - startedAt.getTime()) / 1000, 1),
		machine: { ...machine(), loadAverageBefore: loadBefore.map((l) => round(l, 2)), loadAverageAfter: loadAfter.map((l) => round(l, 2)) },
		sizes: SIZES,
		rows,
	};
	writeFileSync(join(__dirname, '..', '..', 'results.json'), `${JSON.stringify(results, null, '\t')}\n`);
	const missed = rows.filter((r) => r.pass === false).length;
	log(`${rows.length} rows, ${missed} goal(s) missed; written to bench/results.json (${results.seconds} s)`);
}

main()
	.then(() => cleanup(0))
	.catch(async (error: unknown) => {
		process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		await cleanup(1);
	});

async function cleanup(code: number) {
	await Promise.allSettled([...children].map((child) => child.stop()));
	for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
	process.exit(code);
}

