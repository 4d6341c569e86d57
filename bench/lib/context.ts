/**
 * What every row of the bench shares: the run's sizes (quick or full), the table of rows, the child
 * processes and temporary folders to clean up, and the reference server spoken to with plain fetch.
 */
import { randomUUID } from 'crypto';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { startChild, type Child } from './children';

export const quick = process.argv.includes('--quick');

/** nodeRepeats: rounds of the node rows in n8n's engine (seconds each, and the noisiest on a shared VM). */
export const SIZES = quick
	? {
			createItems: 200,
			warmItems: 50,
			slowItems: 80,
			listPages: 2_000,
			fileMb: 16,
			submissions: 200,
			nodeRepeats: 1,
		}
	: {
			createItems: 2_000,
			warmItems: 200,
			// Rounds of about a second at Concurrency 8 (400 items: half a second, and one slow
			// stretch of the VM decided a run).
			slowItems: 1_000,
			listPages: 20_000,
			fileMb: 512,
			submissions: 2_000,
			nodeRepeats: 3,
		};

export interface Row {
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

export const rows: Row[] = [];
export const children: Child[] = [];
export const tmpDirs: string[] = [];

export function log(message: string) {
	process.stderr.write(`[bench] ${message}\n`);
}

export function tempDir(prefix: string) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	tmpDirs.push(dir);
	return dir;
}

/** Starts a child (lib/children.ts) that is stopped at the end of the run whatever happens. */
export function trackedChild(script: string, env: NodeJS.ProcessEnv = {}): Child {
	const child = startChild(script, env);
	children.push(child);
	return child;
}

export async function stopChild(child: Child) {
	await child.stop();
	const index = children.indexOf(child);
	if (index >= 0) children.splice(index, 1);
}

export interface Site {
	child: Child;
	url: string;
	adminToken: string;
	dataDir: string;
}

/** A reference server child; options.dataDir reopens an existing data directory. */
export async function startSite(options: Record<string, unknown> = {}, delayMs = 0): Promise<Site> {
	const dataDir = typeof options.dataDir === 'string' ? options.dataDir : tempDir('site-bench-');
	const child = trackedChild('server-child', {
		BENCH_SERVER_OPTIONS: JSON.stringify({ enableVariables: false, ...options, dataDir }),
		BENCH_SERVER_DELAY_MS: String(delayMs),
	});
	const ready = await child.next<{ type: string; url: string; adminToken: string }>(
		'ready',
		60_000,
	);
	return { child, url: ready.url, adminToken: ready.adminToken, dataDir };
}

export async function call(
	base: string,
	token: string,
	method: string,
	path: string,
	body?: unknown,
) {
	const response = await fetch(`${base}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${token}`,
			accept: 'application/json',
			...(body !== undefined
				? { 'content-type': 'application/json', 'idempotency-key': randomUUID() }
				: {}),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	return {
		status: response.status,
		text,
		json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
	};
}

export async function expectStatus(expected: number, pending: ReturnType<typeof call>) {
	const response = await pending;
	if (response.status !== expected)
		throw new Error(
			`expected HTTP ${expected}, got ${response.status}: ${response.text.slice(0, 500)}`,
		);
	return response;
}

/** Creates a tenant and returns a token for its site. */
export async function createTenant(site: Site, id: string): Promise<string> {
	await expectStatus(200, call(site.url, site.adminToken, 'POST', '/api/tenant', { id }));
	const issued = await expectStatus(
		200,
		call(site.url, site.adminToken, 'POST', '/api/tenant/token', { id }),
	);
	return String(issued.json?.token);
}
