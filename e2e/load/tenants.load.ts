/**
 * Load (npm run test:load, bounded to about a minute): 50 concurrent clients on loopback, 10 per
 * tenant across 5 tenants, each mixing every tenant operation (pages create/get/list/delete, content,
 * assets, settings, sitemap, notifications, variables set/list/delete, delivery list) for a fixed time,
 * and at least MIN_ROUNDS rounds each.
 *
 * - No error: every answer is the one the operation expects.
 * - No cross-tenant leak: everything a client reads belongs to its own tenant (each tenant's urls,
 *   keys, names and settings carry its own marker).
 * - Nothing lost, nothing extra: the server's count of live pages, variables and assets of each tenant
 *   (database rows, and asset files on disk) equals what its clients were told they created (minus
 *   what they were told they deleted).
 */
import { readdirSync, existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { startServer, type RunningServer } from '../../reference-server/src';

const TENANTS = 5;
const CLIENTS_PER_TENANT = 10;
const DURATION_MS = Number(process.env.LOAD_DURATION_MS ?? 25_000);
/**
 * Rounds every client makes whatever the clock says: n = 1..4 goes through every operation once
 * (every branch below), and 50 clients x 4 rounds are over 1,500 requests. So the test loads the
 * server as much on a slow machine; the clock only decides how much more.
 */
const MIN_ROUNDS = 4;

let server: RunningServer;
let dataDir: string;
const adminToken = `admin-load-${Date.now()}-${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
	dataDir = mkdtempSync(join(tmpdir(), 'site-load-'));
	server = await startServer({
		port: 0,
		dataDir,
		adminToken,
		enableVariables: true,
		logger: false,
		webhookAllow: 'loopback',
	});
});

afterAll(async () => {
	await server?.close();
	if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
	status: number;
	body: any;
}

const latencies: number[] = [];
const counts: Record<string, number> = {};
const failures: string[] = [];
const leaks: string[] = [];

async function call(
	method: string,
	path: string,
	token: string,
	body?: unknown,
	form?: FormData,
): Promise<Answer> {
	const started = performance.now();
	const response = await fetch(`${server.url}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${token}`,
			...(body !== undefined ? { 'content-type': 'application/json' } : {}),
		},
		body: form ?? (body !== undefined ? JSON.stringify(body) : undefined),
	});
	const text = await response.text();
	latencies.push(performance.now() - started);
	let parsed: any;
	try {
		parsed = JSON.parse(text);
	} catch {
		parsed = text;
	}
	return { status: response.status, body: parsed };
}

interface Tenant {
	id: string;
	token: string;
	marker: string;
}

/** What one client was told it created and deleted. */
interface Ledger {
	pages: Set<string>;
	variables: Set<string>;
	assets: number;
}

async function client(tenant: Tenant, clientIndex: number, deadline: number, ledger: Ledger) {
	const { token, marker } = tenant;
	let n = 0;
	const expect = (what: string, answer: Answer, status: number) => {
		counts[what] = (counts[what] ?? 0) + 1;
		if (answer.status !== status)
			failures.push(
				`${tenant.id}#${clientIndex} ${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`,
			);
		return answer.status === status;
	};
	const checkOwn = (what: string, text: string) => {
		for (let other = 0; other < TENANTS; other++) {
			const otherMarker = `m${other}x`;
			if (otherMarker !== marker && text.includes(otherMarker))
				leaks.push(`${tenant.id}#${clientIndex} ${what} shows ${otherMarker}`);
		}
	};

	while (n < MIN_ROUNDS || Date.now() < deadline) {
		n++;
		const url = `/${marker}/c${clientIndex}/p${n}`;
		// Page create, then read it back.
		if (
			expect(
				'page.create',
				await call('POST', '/api/page', token, { name: `${marker} page ${n}`, url, locale: 'en' }),
				201,
			)
		)
			ledger.pages.add(url);
		const got = await call('GET', `/api/pages?url=${encodeURIComponent(url)}`, token);
		if (expect('page.get', got, 200) && got.body.data?.[0]?.url !== url)
			failures.push(`page.get ${url}: ${JSON.stringify(got.body).slice(0, 200)}`);
		// Content.
		expect(
			'content.update',
			await call('PUT', '/api/content', token, {
				url,
				templates: [{ type: 'text', text: `${marker} ${n}` }],
				banner: { title: marker },
			}),
			200,
		);
		// Variables: set two, delete one.
		const key = `${marker}-c${clientIndex}-k${n}`;
		if (
			expect(
				'variable.set',
				await call('PUT', '/api/variables', token, { key, value: `${marker} value ${n}` }),
				200,
			)
		)
			ledger.variables.add(key);
		if (n % 2 === 0) {
			const previous = `${marker}-c${clientIndex}-k${n - 1}`;
			if (
				expect(
					'variable.delete',
					await call('DELETE', '/api/variables', token, { key: previous }),
					200,
				)
			)
				ledger.variables.delete(previous);
		}
		// Notifications and settings.
		expect(
			'notification.send',
			await call('POST', '/api/notifications', token, {
				id: `${marker}-job-${clientIndex}`,
				message: `${marker} step ${n}`,
				status: 'info',
			}),
			200,
		);
		if (n % 3 === 0)
			expect(
				'settings.update',
				await call('POST', '/api/settings', token, { google_code: `G-${marker}`, noindex: n % 2 }),
				200,
			);
		// An asset now and then.
		if (n % 2 === 1) {
			const form = new FormData();
			form.append('name', `${marker}-asset-${clientIndex}-${n}`);
			form.append(
				'file',
				new Blob([`${marker} file ${n} `.repeat(64)], { type: 'text/plain' }),
				`${marker}-${n}.txt`,
			);
			const uploaded = await call('POST', '/api/asset', token, undefined, form);
			if (expect('asset.upload', uploaded, 201)) ledger.assets++;
		}
		// Reads that list the tenant's data: they must show this tenant only.
		const which = n % 4;
		if (which === 0) {
			const list = await call('GET', '/api/pages?per_page=100', token);
			if (expect('page.list', list, 200)) checkOwn('page.list', JSON.stringify(list.body));
		} else if (which === 1) {
			const list = await call('GET', '/api/variables', token);
			if (expect('variable.list', list, 200)) checkOwn('variable.list', JSON.stringify(list.body));
		} else if (which === 2) {
			const sitemap = await call('POST', '/api/sitemap', token, {});
			if (expect('sitemap', sitemap, 200)) checkOwn('sitemap', JSON.stringify(sitemap.body));
		} else {
			const settings = await call('GET', '/api/settings', token);
			if (expect('settings.get', settings, 200))
				checkOwn('settings.get', JSON.stringify(settings.body));
			const notes = await call('GET', '/api/notifications', token);
			if (expect('notification.list', notes, 200))
				checkOwn('notification.list', JSON.stringify(notes.body));
			expect('deliveries.list', await call('GET', '/api/contact-form/deliveries', token), 200);
		}
		// Delete every third page, alternating default and permanent deletes.
		if (n % 3 === 0) {
			const victim = `/${marker}/c${clientIndex}/p${n - 1}`;
			if (
				expect(
					'page.delete',
					await call('DELETE', '/api/page', token, {
						url: victim,
						...(n % 2 ? { permanently: 1 } : {}),
					}),
					200,
				)
			)
				ledger.pages.delete(victim);
		}
	}
}

test(`${TENANTS * CLIENTS_PER_TENANT} concurrent clients across ${TENANTS} tenants: no error, no leak, server counts match`, async () => {
	const tenants: Tenant[] = [];
	for (let i = 0; i < TENANTS; i++) {
		const id = `load-${i}`;
		const created = await call('POST', '/api/tenant', adminToken, { id });
		expect(created.status).toBe(200);
		const issued = await call('POST', '/api/tenant/token', adminToken, { id });
		expect(issued.status).toBe(200);
		tenants.push({ id, token: issued.body.token, marker: `m${i}x` });
	}
	latencies.length = 0;

	const started = Date.now();
	const deadline = started + DURATION_MS;
	const ledgers = tenants.map(() =>
		Array.from({ length: CLIENTS_PER_TENANT }, (): Ledger => ({
			pages: new Set(),
			variables: new Set(),
			assets: 0,
		})),
	);
	await Promise.all(
		tenants.flatMap((tenant, t) =>
			ledgers[t].map((ledger, c) => client(tenant, c, deadline, ledger)),
		),
	);
	const seconds = (Date.now() - started) / 1000;

	expect(failures.slice(0, 20)).toEqual([]);
	expect(leaks.slice(0, 20)).toEqual([]);

	const store = server.app.site.store;
	const figures: string[] = [];
	for (const [t, tenant] of tenants.entries()) {
		const pk = store.tenants.findById(tenant.id)!.pk;
		const told = {
			pages: ledgers[t].reduce((sum, ledger) => sum + ledger.pages.size, 0),
			variables: ledgers[t].reduce((sum, ledger) => sum + ledger.variables.size, 0),
			assets: ledgers[t].reduce((sum, ledger) => sum + ledger.assets, 0),
		};
		const db = store.db;
		const livePages = db
			.prepare('SELECT url FROM pages WHERE tenant_pk = ? AND deleted_at IS NULL')
			.all(pk) as Array<{ url: string }>;
		const variables = db.prepare('SELECT key FROM variables WHERE tenant_pk = ?').all(pk) as Array<{
			key: string;
		}>;
		const assetRows = (
			db.prepare('SELECT COUNT(*) AS n FROM assets WHERE tenant_pk = ?').get(pk) as { n: number }
		).n;
		const assetDir = join(dataDir, 'assets', String(pk));
		const assetFiles = existsSync(assetDir) ? readdirSync(assetDir).length : 0;
		const onServer = { pages: livePages.length, variables: variables.length, assets: assetRows };
		expect({ tenant: tenant.id, ...onServer, assetFiles }).toEqual({
			tenant: tenant.id,
			...told,
			assetFiles: told.assets,
		});
		// And they are the very same pages and keys.
		expect(new Set(livePages.map((p) => p.url))).toEqual(
			new Set(ledgers[t].flatMap((l) => [...l.pages])),
		);
		expect(new Set(variables.map((v) => v.key))).toEqual(
			new Set(ledgers[t].flatMap((l) => [...l.variables])),
		);
		figures.push(
			`${tenant.id}:pages=${onServer.pages},variables=${onServer.variables},assets=${onServer.assets}`,
		);
	}

	const sorted = [...latencies].sort((a, b) => a - b);
	const requests = sorted.length;
	const p = (q: number) =>
		sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
	console.log(
		`[reliability] load: clients=${TENANTS * CLIENTS_PER_TENANT} tenants=${TENANTS} seconds=${seconds.toFixed(1)} requests=${requests} ` +
			`rps=${(requests / seconds).toFixed(0)} p50_ms=${p(0.5)} p95_ms=${p(0.95)} p99_ms=${p(0.99)} errors=${failures.length} leaks=${leaks.length} ` +
			`${figures.join(' ')} ops=${JSON.stringify(counts)}`,
	);
	// Guaranteed by MIN_ROUNDS, not by the machine's speed: the load really was there.
	expect(requests).toBeGreaterThan(1000);
});
