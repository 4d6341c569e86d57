/**
 * Reliability under injected faults: the Tenant node, run in n8n's engine, against a reference server
 * started with faultRate 0.2 (a fifth of /api requests answered 503 before any work) and
 * faultDropRate 0.05 (a twentieth do the work, commit, then drop the connection unanswered).
 *
 * - 1,000 Page Creates end with exactly 1,000 pages, none twice, every item a success.
 * - 1,000 Content Updates: every page holds its own content, each update done once.
 * - 1,000 Asset Uploads: exactly 1,000 asset records and 1,000 files, each file stored once.
 *
 * "Done once" is read from the server's own books: every item's Idempotency-Key has exactly one
 * record (the work ran once under it; every retry after a lost answer was a replay), and nothing was
 * refused as a conflict.
 *
 * A request fails one attempt with probability 0.2 + 0.8 * 0.05 = 0.24. With the default 5 retries
 * an item fails all 6 attempts with p = 0.24^6 ≈ 1.9e-4, i.e. one of 1,000 items fails in about
 * 17% of runs; the workflows here set Options > Max Retries to 10 (p = 0.24^11 ≈ 1.5e-7 per item).
 */
import { createHash, randomBytes } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import axios from 'axios';
import type { INodeCredentials } from 'n8n-workflow';

import type { WorkflowRunner } from '../harness/workflow-runner';
import { FaultCounter, report } from '../harness/fault-counter';
import { byUrl } from '../harness/locators';
import { createRunner, seedPages } from '../harness/nodes';
import { startTestSite, type TestSite, type TestTenant } from '../harness/reference-server';

const FAULTS = { faultRate: 0.2, faultDropRate: 0.05 };
const OPTIONS = { batching: { batch: { batchSize: 8 } }, maxRetries: 10 };
const PAGES = 1000;
const UPDATES = 1000;
const ASSETS = 1000;

let site: TestSite;
let runner: WorkflowRunner;
const counter = new FaultCounter();
const tenants: Record<
	'pages' | 'content' | 'assets',
	TestTenant & { credential: INodeCredentials }
> = {} as never;

beforeAll(async () => {
	// Set-up without faults, then the same data directory again with faults.
	site = await startTestSite();
	runner = createRunner();
	for (const name of ['pages', 'content', 'assets'] as const) {
		const tenant = await site.createTenant(`faults-${name}`);
		tenants[name] = {
			...tenant,
			credential: runner.credentials.add('siteTenantApi', {
				baseUrl: site.url,
				token: tenant.token,
			}),
		};
	}
	await seedPages(
		tenants.content.client,
		Array.from({ length: UPDATES }, (_, i) => ({ url: `/content/${i}` })),
	);
	await site.restart(FAULTS);
	counter.attach(site.server.app.server);
}, 60_000);

afterAll(async () => {
	await site?.close();
});

const db = () => site.server.app.site.store.db;
const tenantPk = (id: string) => site.server.app.site.store.tenants.findById(id)!.pk;

/** The Idempotency-Key records of one tenant: one per request that did its work. */
function idempotencyRecords(tenantId: string): Array<{ state: string; status: number }> {
	return db()
		.prepare('SELECT state, status FROM idempotency_keys WHERE scope = ?')
		.all(`tenant:${tenantPk(tenantId)}`) as Array<{
		state: string;
		status: number;
	}>;
}

function statusCounts(records: Array<{ state: string; status: number }>): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const record of records)
		counts[`${record.state}:${record.status}`] =
			(counts[`${record.state}:${record.status}`] ?? 0) + 1;
	return counts;
}

test(`${PAGES} Page Creates under faults: exactly ${PAGES} pages, none twice, every item a success`, async () => {
	counter.take();
	const started = Date.now();
	const result = await runner.runNode({
		type: 'siteTenant',
		credentials: tenants.pages.credential,
		input: Array.from({ length: PAGES }, (_, i) => ({ json: { i } })),
		parameters: {
			resource: 'page',
			operation: 'create',
			name: '={{ "Page " + $json.i }}',
			url: '={{ "/faults/" + $json.i }}',
			locale: 'en',
			options: OPTIONS,
		},
	});
	const figures = counter.take();

	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(PAGES);
	result.items.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json).toMatchObject({ url: `/faults/${i}`, name: `Page ${i}` });
	});

	const rows = db()
		.prepare('SELECT url, deleted_at FROM pages WHERE tenant_pk = ?')
		.all(tenantPk(tenants.pages.id)) as Array<{ url: string; deleted_at: string | null }>;
	expect(rows).toHaveLength(PAGES);
	expect(new Set(rows.map((row) => row.url)).size).toBe(PAGES);
	expect(rows.map((row) => row.url).sort()).toEqual(
		Array.from({ length: PAGES }, (_, i) => `/faults/${i}`).sort(),
	);
	expect(rows.every((row) => row.deleted_at === null)).toBe(true);
	// One key per item, each did its work once and answered 201: no conflict, no second attempt at the work.
	expect(statusCounts(idempotencyRecords(tenants.pages.id))).toEqual({ [`done:201`]: PAGES });

	// The faults really happened.
	expect(figures.unavailable).toBeGreaterThan(PAGES * 0.1);
	expect(figures.dropped).toBeGreaterThan(PAGES * 0.02);
	// Every dropped answer was followed by a replay of the stored answer (a replay may be dropped too).
	expect(figures.replayed).toBeGreaterThan(0);
	expect(figures.replayed).toBeLessThanOrEqual(figures.dropped);
	report('faults: page creates', {
		items: PAGES,
		pages: rows.length,
		...figures,
		seconds: ((Date.now() - started) / 1000).toFixed(1),
	});
	// jest's limit, a hang guard only: a run of 1,000 items takes 20-35 s on a loaded 2-core machine
	// (most of it retry backoff), too close to jest's default 60 s.
}, 600_000);

test(`${UPDATES} Content Updates under faults: every page holds its own content, each update done once`, async () => {
	counter.take();
	const started = Date.now();
	const result = await runner.runNode({
		type: 'siteTenant',
		credentials: tenants.content.credential,
		input: Array.from({ length: UPDATES }, (_, i) => ({ json: { i } })),
		parameters: {
			resource: 'content',
			operation: 'update',
			url: byUrl('={{ "/content/" + $json.i }}'),
			templates:
				'={{ JSON.stringify([{ type: "text", text: "content " + $json.i }, { type: "image", src: "/img/" + $json.i + ".png" }]) }}',
			banner: '={{ JSON.stringify({ title: "banner " + $json.i }) }}',
			options: OPTIONS,
		},
	});
	const figures = counter.take();

	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(UPDATES);
	result.items.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json).toMatchObject({
			url: `/content/${i}`,
			templates: [
				{ type: 'text', text: `content ${i}` },
				{ type: 'image', src: `/img/${i}.png` },
			],
		});
	});
	const rows = db()
		.prepare('SELECT url, templates, banner FROM pages WHERE tenant_pk = ? ORDER BY id')
		.all(tenantPk(tenants.content.id)) as Array<{ url: string; templates: string; banner: string }>;
	expect(rows).toHaveLength(UPDATES);
	for (const row of rows) {
		const i = Number(row.url.split('/').pop());
		expect(JSON.parse(row.templates)).toEqual([
			{ type: 'text', text: `content ${i}` },
			{ type: 'image', src: `/img/${i}.png` },
		]);
		expect(JSON.parse(row.banner)).toEqual({ title: `banner ${i}` });
	}
	// The seeded pages went in without keys: every record here is one update, done once.
	expect(statusCounts(idempotencyRecords(tenants.content.id))).toEqual({ 'done:200': UPDATES });
	expect(figures.unavailable).toBeGreaterThan(0);
	expect(figures.replayed).toBeLessThanOrEqual(figures.dropped);
	report('faults: content updates', {
		items: UPDATES,
		...figures,
		seconds: ((Date.now() - started) / 1000).toFixed(1),
	});
	// jest's limit, a hang guard only (see the first test).
}, 600_000);

test(`${ASSETS} Asset Uploads under faults: ${ASSETS} records and ${ASSETS} files, each stored once`, async () => {
	counter.take();
	const started = Date.now();
	const files = Array.from({ length: ASSETS }, (_, i) =>
		Buffer.concat([Buffer.from(`asset ${i}\n`), randomBytes(1024 + (i % 97) * 13)]),
	);
	const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');
	const result = await runner.runNode({
		type: 'siteTenant',
		credentials: tenants.assets.credential,
		input: files.map((data, i) => ({
			json: { i },
			binary: { data: { data, fileName: `file-${i}.bin`, mimeType: 'application/octet-stream' } },
		})),
		parameters: {
			resource: 'asset',
			operation: 'upload',
			binaryPropertyName: 'data',
			options: OPTIONS,
		},
	});
	const figures = counter.take();

	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(ASSETS);
	result.items.forEach((item, i) => {
		expect(item.pairedItem).toEqual({ item: i });
		expect(item.json).toMatchObject({ name: `file-${i}.bin`, size: files[i].length });
	});
	expect(new Set(result.items.map((item) => item.json.url)).size).toBe(ASSETS);

	const pk = tenantPk(tenants.assets.id);
	const records = db().prepare('SELECT id, name FROM assets WHERE tenant_pk = ?').all(pk) as Array<{
		id: string;
		name: string;
	}>;
	expect(records).toHaveLength(ASSETS);
	expect(new Set(records.map((record) => record.name)).size).toBe(ASSETS);
	// Files on disk: exactly one per record, and every input's bytes exactly once.
	const dir = join(site.dataDir, 'assets', String(pk));
	const onDisk = readdirSync(dir);
	expect(onDisk.sort()).toEqual(records.map((record) => record.id).sort());
	const hashesOnDisk = onDisk.map((name) => sha(readFileSync(join(dir, name)))).sort();
	expect(hashesOnDisk).toEqual(files.map(sha).sort());
	expect(statusCounts(idempotencyRecords(tenants.assets.id))).toEqual({ 'done:201': ASSETS });

	// Served back as uploaded (downloads carry no faults).
	for (const i of [0, 37, 501, ASSETS - 1]) {
		const download = await axios.get<ArrayBuffer>(String(result.items[i].json.url), {
			responseType: 'arraybuffer',
		});
		expect(sha(Buffer.from(download.data))).toBe(sha(files[i]));
	}
	expect(figures.unavailable).toBeGreaterThan(0);
	report('faults: asset uploads', {
		items: ASSETS,
		records: records.length,
		files: onDisk.length,
		...figures,
		seconds: ((Date.now() - started) / 1000).toFixed(1),
	});
	// jest's limit, a hang guard only (see the first test).
}, 600_000);
