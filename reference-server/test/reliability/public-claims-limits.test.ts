/**
 * The public claims endpoint (POST /forms/{tenant_id}/claims) bounded: rate-limited per client
 * address and per tenant by the public form's limiter (budgets of its own), and the claims a tenant
 * holds capped, expired ones pruned first, then the oldest.
 */
import Database from 'better-sqlite3';
import {
	type Harness,
	clientFrom,
	createTenant,
	expectError,
	expectOk,
	removeDataDirs,
	start,
	stopAll,
} from '../helpers';
import { openDatabase } from '../../src/db/open';
import {
	CLAIM_RETENTION_MS,
	createContactFormClaimRepository,
} from '../../src/db/contact-form-claims';

const SECRET = 'a-webhook-secret-of-32-characters!';

afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

async function tenantWithSecret(h: Harness) {
	const t = await createTenant(h);
	expectOk(
		await t.api.post('/api/settings', {
			contact_form_webhook_url: 'http://127.0.0.1:9/receiver',
			contact_form_webhook_headers: { 'X-Site-Webhook-Secret': SECRET },
		}),
	);
	return t;
}

const claimAs = (h: Harness, tenantId: string, secret: string, key: string) =>
	h.anon.post(
		`/forms/${tenantId}/claims`,
		{ consumer: 'wf/node', key },
		{ headers: { 'X-Site-Webhook-Secret': secret } },
	);

describe('rate limits, like the public form', () => {
	it('per client address: wrong secrets are counted too, then 429 with Retry-After; the form keeps its own budget', async () => {
		const h = await start({ formRatePerAddress: 3, formRatePerTenant: 0 });
		const [a, b] = [await tenantWithSecret(h), await tenantWithSecret(h)];
		const statuses = [
			(await claimAs(h, a.id, 'wrong', 'k1')).status,
			(await claimAs(h, a.id, 'wrong', 'k2')).status,
			(await claimAs(h, b.id, SECRET, 'k3')).status,
			(await claimAs(h, b.id, SECRET, 'k4')).status,
		];
		expect(statuses).toEqual([401, 401, 201, 429]);
		const refused = expectError(await claimAs(h, a.id, SECRET, 'k5'), 429, 'rate_limited');
		expect(refused.message).toMatch(/^Too many requests; retry in \d+ s\.$/);
		const again = await claimAs(h, a.id, SECRET, 'k5');
		expect(Number(again.headers['retry-after'])).toBeGreaterThanOrEqual(1);
		expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(60);
		// Nothing was claimed past the limit: k4 is still free (the token route claims it first).
		expect(
			(await b.api.post('/api/contact-form/claims', { consumer: 'wf/node', key: 'k4' })).status,
		).toBe(201);
		// The public form counts apart.
		expect((await h.anon.post(`/forms/${a.id}/contact`, { n: 1 })).status).toBe(202);
	});

	it('both budgets on: wrong secrets from ten loopback addresses meet the per-tenant budget', async () => {
		const h = await start({ formRatePerAddress: 20, formRatePerTenant: 30 });
		const a = await tenantWithSecret(h);
		const statuses: number[] = [];
		for (let address = 2; address < 12; address++) {
			const from = clientFrom(h.url, `127.0.0.${address}`);
			for (let n = 0; n < 10; n++) {
				const answer = await from.post(
					`/forms/${a.id}/claims`,
					{ consumer: 'wf/node', key: `k${address}-${n}` },
					{ headers: { 'X-Site-Webhook-Secret': 'wrong' } },
				);
				statuses.push(answer.status);
			}
		}
		expect(statuses.filter((status) => status === 401)).toHaveLength(30);
		expect(statuses.filter((status) => status === 429)).toHaveLength(70);
	});

	it('per address the budget is never below the per-tenant one (a receiver claims for every tenant it serves)', async () => {
		const h = await start({ formRatePerAddress: 1, formRatePerTenant: 3 });
		const [a, b] = [await tenantWithSecret(h), await tenantWithSecret(h)];
		const statuses: number[] = [];
		for (const [tenant, key] of [
			[a, 'k1'],
			[b, 'k1'],
			[b, 'k2'],
			[a, 'k2'],
		] as const) {
			statuses.push((await claimAs(h, tenant.id, SECRET, key)).status);
		}
		expect(statuses).toEqual([201, 201, 201, 429]);
		// The form from the same address keeps its own budget of 1.
		expect((await h.anon.post(`/forms/${a.id}/contact`, { n: 1 })).status).toBe(202);
		expect((await h.anon.post(`/forms/${a.id}/contact`, { n: 1 })).status).toBe(429);
	});

	it('per tenant: one tenant flooded does not stop another', async () => {
		const h = await start({ formRatePerAddress: 0, formRatePerTenant: 2 });
		const [a, b] = [await tenantWithSecret(h), await tenantWithSecret(h)];
		const statuses: number[] = [];
		for (const [tenant, key] of [
			[a, 'k1'],
			[a, 'k2'],
			[a, 'k3'],
			[b, 'k1'],
		] as const) {
			statuses.push((await claimAs(h, tenant.id, SECRET, key)).status);
		}
		expect(statuses).toEqual([201, 201, 429, 201]);
	});
});

describe('claims capped per tenant and pruned', () => {
	const tenants = (db: Database.Database) => {
		const insert = db.prepare(
			"INSERT INTO tenants (id, created_at, updated_at) VALUES (?, '2026-01-01', '2026-01-01')",
		);
		return [1, 2].map((n) => Number(insert.run(`t${n}`).lastInsertRowid));
	};
	const keysOf = (db: Database.Database, tenantPk: number) =>
		db
			.prepare('SELECT key FROM contact_form_claims WHERE tenant_pk = ? ORDER BY key')
			.pluck()
			.all(tenantPk);

	it('past the cap the expired claims go first, then the oldest; other tenants are untouched', () => {
		const db = openDatabase(':memory:');
		const [one, two] = tenants(db);
		const claims = createContactFormClaimRepository(db, 3);
		for (const key of ['a', 'b', 'c']) expect(claims.claim(one, 'c', key).claimed).toBe(true);
		expect(claims.claim(two, 'c', 'x').claimed).toBe(true);
		// b expired: it makes room for d.
		const expired = new Date(Date.now() - CLAIM_RETENTION_MS - 1000).toISOString();
		db.prepare("UPDATE contact_form_claims SET claimed_at = ? WHERE key = 'b'").run(expired);
		expect(claims.claim(one, 'c', 'd').claimed).toBe(true);
		expect(keysOf(db, one)).toEqual(['a', 'c', 'd']);
		// None expired: the oldest (a, a day old) gives way to e; a repeat of a kept claim changes nothing.
		const dayOld = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
		db.prepare("UPDATE contact_form_claims SET claimed_at = ? WHERE key = 'a'").run(dayOld);
		expect(claims.claim(one, 'c', 'e').claimed).toBe(true);
		expect(claims.claim(one, 'c', 'd').claimed).toBe(false);
		expect(keysOf(db, one)).toEqual(['c', 'd', 'e']);
		expect(keysOf(db, two)).toEqual(['x']);
	});

	it('expired claims are pruned on open and by purgeExpired, which the hourly retention purge runs', () => {
		const db = openDatabase(':memory:');
		const [one] = tenants(db);
		const claims = createContactFormClaimRepository(db);
		for (const key of ['a', 'b']) claims.claim(one, 'c', key);
		const expired = new Date(Date.now() - CLAIM_RETENTION_MS - 1000).toISOString();
		db.prepare("UPDATE contact_form_claims SET claimed_at = ? WHERE key = 'a'").run(expired);
		expect(claims.purgeExpired()).toBe(1);
		expect(keysOf(db, one)).toEqual(['b']);
		db.prepare("UPDATE contact_form_claims SET claimed_at = ? WHERE key = 'b'").run(expired);
		createContactFormClaimRepository(db);
		expect(keysOf(db, one)).toEqual([]);
	});
});
