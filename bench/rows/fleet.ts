/**
 * A fleet in a real n8n (tools/n8n-runtime/), server 20 ms away: one execution updates a setting and
 * sends a notification on every tenant of a list, through the Tenant node with one Managed Tenant
 * credential (Tenant Scope Any) against n8n's HTTP Request route (a token per tenant issued with the
 * Admin credential, then the two calls with it). Each run has tenants of its own; the runs are
 * branches of one workflow in ABBA order (lib/fleet-workflow.ts), run by one `n8n execute`. A route's
 * time runs from its first node's start to its last node's end (the item source is not counted).
 *
 * Checked on the reference server's database: each run minted exactly one token per tenant and every
 * tenant has the setting and the notification. Checked in n8n's stored execution data: no token of a
 * package run is there; the HTTP Request runs' tokens are counted.
 */
import Database from 'better-sqlite3';
import { createHash } from 'crypto';
import { join } from 'path';

import {
	call,
	expectStatus,
	log,
	quick,
	rows,
	startSite,
	stopChild,
	type Site,
} from '../lib/context';
import {
	FLEET_NOTIFICATION,
	FLEET_SETTING,
	fleetTenant,
	fleetWorkflow,
	routeNodes,
	type FleetRoute,
	type FleetRun,
} from '../lib/fleet-workflow';
import { nodeItems, prepareRealN8n, type CpuTime, type WorkflowRun } from '../lib/real-n8n';
import { pool, round } from '../lib/stats';

const TENANTS = quick ? 200 : 1_000;
/**
 * Warm-up runs of each route, not measured: long enough for n8n's code to be optimised and its heap
 * to settle, so the first measured run (the package's, in round 1) does not pay for that alone.
 */
const WARM_TENANTS = quick ? 50 : 300;
/** ABBA: two rounds, so neither route always runs first. */
const ROUNDS = 2;
const DELAY_MS = 20;
const GOAL = 1.0;
const EXECUTE_TIMEOUT_MS = 10 * 60_000;
const WORKFLOW_ID = 'fleetBench000001';
const MANAGED_CREDENTIAL_ID = 'fleetManagedCred';
const ADMIN_CREDENTIAL_ID = 'fleetAdminCred01';

/** Tenant tokens as the reference server issues them (`stt_` and 43 base64url characters). */
const TOKEN_PATTERN = /stt_[A-Za-z0-9_-]{43}/g;

const label = (route: FleetRoute) => (route === 'package' ? 'Tenant node' : 'HTTP Request');

function plan(): Array<FleetRun & { round?: number }> {
	const list: Array<FleetRun & { round?: number }> = [
		{ key: 'fw-p', route: 'package', tenants: WARM_TENANTS },
		{ key: 'fw-h', route: 'httpRequest', tenants: WARM_TENANTS },
	];
	for (let r = 0; r < ROUNDS; r++) {
		const routes: FleetRoute[] =
			r % 2 === 0 ? ['package', 'httpRequest'] : ['httpRequest', 'package'];
		for (const route of routes)
			list.push({ key: `f${r + 1}-${route[0]}`, route, tenants: TENANTS, round: r });
	}
	return list;
}

async function createTenants(site: Site, runs: FleetRun[]) {
	const ids = runs.flatMap((run) =>
		Array.from({ length: run.tenants }, (_, i) => fleetTenant(run, i)),
	);
	await pool(ids.length, 50, (i) =>
		expectStatus(200, call(site.url, site.adminToken, 'POST', '/api/tenant', { id: ids[i] })),
	);
}

/**
 * A route's time in the run: first node's start to last node's end, and each node's own time; each
 * node output every tenant.
 */
function routeTime(
	run: WorkflowRun,
	fleetRun: FleetRun,
): { start: number; end: number; nodesMs: number[] } {
	const names = routeNodes(fleetRun);
	for (const name of names) {
		const items = nodeItems(run, name);
		if (items.length !== fleetRun.tenants || items.some((item) => 'error' in item))
			throw new Error(
				`fleet: "${name}" output ${items.length} items (or errors), expected ${fleetRun.tenants}`,
			);
	}
	const first = run.data.resultData.runData[names[0]][0];
	const last = run.data.resultData.runData[names[names.length - 1]][0];
	return {
		start: first.startTime,
		end: last.startTime + last.executionTime,
		nodesMs: names.map((name) => run.data.resultData.runData[name][0].executionTime),
	};
}

/** Per run on the server: tokens minted for its tenants, tenants with the setting and with the notification. */
function serverCounts(site: Site, fleetRun: FleetRun) {
	const db = new Database(join(site.dataDir, 'site.db'), { readonly: true, fileMustExist: true });
	try {
		const like = `${fleetRun.key}-%`;
		const count = (sql: string, ...args: unknown[]) =>
			(db.prepare(sql).get(like, ...args) as { n: number }).n;
		return {
			tokens: count(
				'SELECT COUNT(*) AS n FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk WHERE tn.id LIKE ?',
			),
			settings: count(
				'SELECT COUNT(*) AS n FROM settings s JOIN tenants tn ON tn.pk = s.tenant_pk WHERE tn.id LIKE ? AND s.google_code = ?',
				FLEET_SETTING.google_code,
			),
			notifications: count(
				'SELECT COUNT(*) AS n FROM notifications x JOIN tenants tn ON tn.pk = x.tenant_pk WHERE tn.id LIKE ? AND x.id = ?',
				FLEET_NOTIFICATION.id,
			),
		};
	} finally {
		db.close();
	}
}

/**
 * The tenant tokens in the execution's data as n8n stored it (its database), else as `n8n execute`
 * printed it; each is traced to its tenant on the server by its hash, and counted per run key.
 */
function storedTokens(site: Site, n8nDatabase: string, run: WorkflowRun) {
	const n8nDb = new Database(n8nDatabase, { readonly: true, fileMustExist: true });
	let data: string;
	let where: string;
	try {
		const row = n8nDb
			.prepare(
				`SELECT d.data FROM execution_entity e JOIN execution_data d ON d.executionId = e.id
				 WHERE e.workflowId = ? ORDER BY CAST(e.id AS INTEGER) DESC LIMIT 1`,
			)
			.get(WORKFLOW_ID) as { data: string } | undefined;
		data = row?.data ?? JSON.stringify(run);
		where = row ? "n8n's database (execution_data)" : 'the run n8n execute printed';
	} finally {
		n8nDb.close();
	}
	const tokens = new Set(data.match(TOKEN_PATTERN) ?? []);
	const siteDb = new Database(join(site.dataDir, 'site.db'), {
		readonly: true,
		fileMustExist: true,
	});
	const perKey = new Map<string, number>();
	try {
		const byHash = siteDb.prepare(
			'SELECT tn.id FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk WHERE t.token_hash = ?',
		);
		for (const token of tokens) {
			const hash = createHash('sha256').update(token, 'utf8').digest('hex');
			const tenant = (byHash.get(hash) as { id: string } | undefined)?.id ?? 'unknown';
			const key = tenant.replace(/-\d+$/, '');
			perKey.set(key, (perKey.get(key) ?? 0) + 1);
		}
	} finally {
		siteDb.close();
	}
	return { where, perKey };
}

interface Measured extends FleetRun {
	round?: number;
	ms: number;
	nodesMs: number[];
	cpuMsPerTenant: number;
}

function measured(
	fleetRun: FleetRun & { round?: number },
	time: ReturnType<typeof routeTime>,
	cpu: CpuTime,
): Measured {
	return {
		...fleetRun,
		ms: time.end - time.start,
		nodesMs: time.nodesMs,
		cpuMsPerTenant: round(cpu(time.start, time.end) / fleetRun.tenants, 2),
	};
}

export async function fleetRow(): Promise<void> {
	log('real n8n: preparing a user folder with this package (dist/) as a community package');
	const n8n = await prepareRealN8n();
	const site = await startSite({}, DELAY_MS);
	try {
		const runs = plan();
		await createTenants(site, runs);
		await n8n.importCredentials([
			{
				id: MANAGED_CREDENTIAL_ID,
				name: MANAGED_CREDENTIAL_ID,
				type: 'siteManagedTenantApi',
				data: {
					adminBaseUrl: site.url,
					adminToken: site.adminToken,
					tenantScope: 'any',
					tenantId: '',
					baseUrl: site.url,
					lifetime: 900,
				},
			},
			{
				id: ADMIN_CREDENTIAL_ID,
				name: ADMIN_CREDENTIAL_ID,
				type: 'siteAdminApi',
				data: { baseUrl: site.url, token: site.adminToken },
			},
		]);
		await n8n.importWorkflows([
			fleetWorkflow({
				id: WORKFLOW_ID,
				baseUrl: site.url,
				managedCredentialId: MANAGED_CREDENTIAL_ID,
				adminCredentialId: ADMIN_CREDENTIAL_ID,
				runs,
			}),
		]);
		log(
			`real n8n ${n8n.version.n8n}, server ${DELAY_MS} ms away: ${TENANTS} tenants, ${ROUNDS} round(s) Tenant node / HTTP Request route`,
		);
		const { run, wallMs, cpu } = await n8n.execute(WORKFLOW_ID, EXECUTE_TIMEOUT_MS);

		const times = runs.map((fleetRun) => routeTime(run, fleetRun));
		times.forEach((time, i) => {
			if (i > 0 && times[i - 1].end > time.start)
				throw new Error(`fleet: run ${runs[i].key} did not run alone after ${runs[i - 1].key}`);
		});
		for (const fleetRun of runs) {
			const counts = serverCounts(site, fleetRun);
			const expected = fleetRun.tenants;
			if (
				counts.tokens !== expected ||
				counts.settings !== expected ||
				counts.notifications !== expected
			)
				throw new Error(
					`fleet: run ${fleetRun.key} (${label(fleetRun.route)}) left ${counts.tokens} tokens, ${counts.settings} settings and ${counts.notifications} notifications for ${expected} tenants`,
				);
		}
		const stored = storedTokens(site, n8n.databaseFile, run);
		const measuredRuns = runs
			.map((fleetRun, i) => measured(fleetRun, times[i], cpu))
			.filter((r) => r.round !== undefined);
		const of = (route: FleetRoute) => measuredRuns.filter((r) => r.route === route);
		const best = (route: FleetRoute) => Math.min(...of(route).map((r) => r.ms));
		const list = (route: FleetRoute, figure: (r: Measured) => number | string) =>
			of(route).map(figure).join(' ');
		const storedOf = (route: FleetRoute) => of(route).map((r) => stored.perKey.get(r.key) ?? 0);
		const leaked = storedOf('package').reduce((sum, n) => sum + n, 0);
		if (leaked > 0)
			throw new Error(`fleet: ${leaked} tokens of the package runs are in ${stored.where}`);
		const packageMs = best('package');
		const httpMs = best('httpRequest');
		const ratio = httpMs / packageMs;
		const figures = {
			tenants: TENANTS,
			delayMs: DELAY_MS,
			rounds: ROUNDS,
			packageMs,
			httpRequestMs: httpMs,
			packageRuns: list('package', (r) => r.ms),
			httpRequestRuns: list('httpRequest', (r) => r.ms),
			// Each node's own time, joined by +, per run.
			packageNodesMs: list('package', (r) => r.nodesMs.join('+')),
			httpRequestNodesMs: list('httpRequest', (r) => r.nodesMs.join('+')),
			// n8n's CPU per tenant (all its threads) while the route ran: steadier than the times.
			packageCpuMsPerTenant: list('package', (r) => r.cpuMsPerTenant),
			httpRequestCpuMsPerTenant: list('httpRequest', (r) => r.cpuMsPerTenant),
			tokensMintedPerRun: TENANTS,
			tokensStoredPackage: storedOf('package').join(' '),
			tokensStoredHttpRequest: storedOf('httpRequest').join(' '),
			storedDataFrom: stored.where,
			n8nExecuteWallSeconds: round(wallMs / 1000, 1),
		};
		rows.push({
			id: 'fleet-20ms',
			row: `A fleet: Settings Update + Notification Send on ${TENANTS} tenants, one execution, real n8n ${n8n.version.n8n}: Tenant node (Managed Tenant, Any) vs HTTP Request route (token per tenant), server ${DELAY_MS} ms away`,
			measured: `Tenant node ${round(packageMs / 1000, 1)} s`,
			baseline: `HTTP Request route ${round(httpMs / 1000, 1)} s`,
			ratio: round(ratio, 2),
			goal: `>= ${GOAL}`,
			pass: ratio >= GOAL,
			figures,
		});
		log(
			`fleet-20ms: Tenant node ${figures.packageRuns} ms (nodes ${figures.packageNodesMs}; CPU ${figures.packageCpuMsPerTenant} ms/tenant), ` +
				`HTTP Request route ${figures.httpRequestRuns} ms (nodes ${figures.httpRequestNodesMs}; CPU ${figures.httpRequestCpuMsPerTenant} ms/tenant), ` +
				`ratio ${round(ratio, 2)}; tokens stored: package ${figures.tokensStoredPackage}, HTTP Request ${figures.tokensStoredHttpRequest} (${stored.where})`,
		);
	} finally {
		await stopChild(site.child);
	}
}
