/**
 * `npm run bench [-- --quick]`: what the nodes cost over raw HTTP, how they scale, and memory under
 * large files. Every row is a ratio of two things measured in this one run against the same
 * reference server on loopback, so machine noise largely cancels. Prints one table and writes
 * bench/results.json. Exits 0 when a goal is missed (that is a finding, not a failure) and non-zero
 * when something errors.
 *
 * Processes: this one runs the n8n engine (the node under test) and the plain-fetch baselines; the
 * reference server, the bare node:http baseline server and the asset uploader run in child processes
 * (lib/children.ts), so a client and its server never share an event loop. Each group of rows is a
 * file in rows/; what they share is lib/context.ts.
 */
import './env';

import { readFileSync, rmSync } from 'fs';
import { cpus, loadavg, totalmem } from 'os';

import type { WorkflowRunner } from '../test/harness/workflow-runner';
import { children, log, quick, rows, SIZES, startSite, tmpDirs, type Site } from './lib/context';
import { createRunner } from './lib/n8n';
import { printTable, writeDocs, writeResults, type Results } from './lib/report';
import { round } from './lib/stats';
import { assetRows } from './rows/asset';
import { batching5msRow } from './rows/batching-5ms';
import { contactFormRow } from './rows/contact-form';
import { fleetRow } from './rows/fleet';
import { growthRows } from './rows/growth';
import { listRows } from './rows/list';
import { peerN8nRows } from './rows/peer-n8n';
import { pageRows } from './rows/page-create';
import { pageTriggerRows } from './rows/page-trigger';
import { triggerVsWebhookRows } from './rows/trigger-vs-webhook';
import { startReadyRow } from './rows/start-ready';
import { serverVsPrismRows } from './rows/server-vs-prism';

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
	return {
		cpus: info.length,
		model,
		memoryGb: round(totalmem() / 1024 ** 3, 1),
		node: process.version,
		platform: `${process.platform} ${process.arch}`,
	};
}

/**
 * The groups of rows, in the order they run. `--only=a,b` runs some of them (while working on one);
 * a full run is all of them. The shared site is one reference server the groups reuse.
 */
interface Shared {
	site: Site;
	runner: WorkflowRunner;
	/** A tenant with SIZES.listPages pages, made by the first group that needs one. */
	listToken?: string;
}

const groups: Array<{ name: string; run: (shared: Shared) => Promise<void> }> = [
	{ name: 'page-create', run: ({ site, runner }) => pageRows(site, runner) },
	{ name: 'batching-5ms', run: ({ runner }) => batching5msRow(runner) },
	{
		name: 'list',
		run: async (shared) => void (shared.listToken = await listRows(shared.site, shared.runner)),
	},
	{ name: 'peer-n8n', run: () => peerN8nRows() },
	{ name: 'fleet', run: () => fleetRow() },
	{ name: 'contact-form', run: ({ site }) => contactFormRow(site) },
	{ name: 'trigger-vs-webhook', run: () => triggerVsWebhookRows() },
	{ name: 'page-trigger', run: ({ site }) => pageTriggerRows(site) },
	{ name: 'asset', run: () => assetRows() },
	{ name: 'growth', run: () => growthRows() },
	{ name: 'start-ready', run: () => startReadyRow() },
	{ name: 'server-vs-prism', run: () => serverVsPrismRows() },
];

function selectedGroups() {
	const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
	if (!only) return groups;
	const names = only.split(',');
	const unknown = names.filter((name) => !groups.some((group) => group.name === name));
	if (unknown.length > 0)
		throw new Error(
			`--only: unknown group(s) ${unknown.join(', ')}; known: ${groups.map((g) => g.name).join(', ')}`,
		);
	return groups.filter((group) => names.includes(group.name));
}

async function main() {
	const startedAt = new Date();
	const loadBefore = loadavg();
	const selected = selectedGroups();
	log(
		`${quick ? 'quick' : 'full'} run on ${machine().cpus} CPUs, load average ${loadBefore.map((l) => round(l, 2)).join(' ')}`,
	);
	const shared: Shared = {
		runner: createRunner(),
		site: await startSite({ deliveryRetryBaseMs: 100 }),
	};
	for (const group of selected) {
		const started = Date.now();
		await group.run(shared);
		log(`${group.name}: ${round((Date.now() - started) / 1000, 1)} s`);
	}

	const loadAfter = loadavg();
	printTable(rows);
	const results: Results = {
		mode: quick ? 'quick' : 'full',
		startedAt: startedAt.toISOString(),
		seconds: round((Date.now() - startedAt.getTime()) / 1000, 1),
		machine: {
			...machine(),
			loadAverageBefore: loadBefore.map((l) => round(l, 2)),
			loadAverageAfter: loadAfter.map((l) => round(l, 2)),
		},
		sizes: SIZES,
		groups: selected.map((group) => group.name),
		rows,
	};
	writeResults(results);
	const complete = !quick && selected.length === groups.length;
	if (complete) writeDocs(results);
	const missed = rows.filter((r) => r.pass === false).length;
	log(
		`${rows.length} rows, ${missed} goal(s) missed; written to bench/results.json${complete ? ' and docs/bench/' : ''} (${results.seconds} s)`,
	);
}

main()
	.then(() => cleanup(0))
	.catch(async (error: unknown) => {
		process.stderr.write(
			`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		await cleanup(1);
	});

async function cleanup(code: number) {
	await Promise.allSettled([...children].map((child) => child.stop()));
	for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
	process.exit(code);
}
