import type { SqliteDatabase } from './open';
import { isoIn, nowIso } from '../clock';

/** How long a claim is kept: far longer than any delivery keeps being retried. */
export const CLAIM_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * Claims one tenant may hold: the public claims endpoint must not let one tenant's secret (or a
 * flood with it) fill the disk. Past it the tenant's expired claims go, then its oldest: a claim
 * matters while its submission's deliveries are retried, which is hours, not 10,000 claims ago.
 */
export const MAX_CLAIMS_PER_TENANT = 10_000;

export type ContactFormClaimRepository = ReturnType<typeof createContactFormClaimRepository>;

/**
 * Claims on contact-form submissions, keyed by tenant, consumer and key: the first claim wins, any
 * later one learns it came second. Receivers use them to start work once per submission across
 * processes. The table is created here, not in migrations.ts, so this extension stays in one place;
 * `IF NOT EXISTS` makes it safe on every start.
 */
export function createContactFormClaimRepository(
	db: SqliteDatabase,
	maxPerTenant = MAX_CLAIMS_PER_TENANT,
) {
	db.exec(`
	CREATE TABLE IF NOT EXISTS contact_form_claims (
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		consumer TEXT NOT NULL,
		key TEXT NOT NULL,
		claimed_at TEXT NOT NULL,
		PRIMARY KEY (tenant_pk, consumer, key)
	);
	CREATE INDEX IF NOT EXISTS contact_form_claims_age ON contact_form_claims(claimed_at);
	CREATE INDEX IF NOT EXISTS contact_form_claims_tenant_age
		ON contact_form_claims(tenant_pk, claimed_at);
	`);
	const insert = db.prepare(
		'INSERT OR IGNORE INTO contact_form_claims (tenant_pk, consumer, key, claimed_at) VALUES (?, ?, ?, ?)',
	);
	const find = db.prepare<[number, string, string], { claimed_at: string }>(
		'SELECT claimed_at FROM contact_form_claims WHERE tenant_pk = ? AND consumer = ? AND key = ?',
	);
	const remove = db.prepare(
		'DELETE FROM contact_form_claims WHERE tenant_pk = ? AND consumer = ? AND key = ?',
	);
	const purge = db.prepare('DELETE FROM contact_form_claims WHERE claimed_at < ?');
	const count = db
		.prepare<[number], number>('SELECT COUNT(*) FROM contact_form_claims WHERE tenant_pk = ?')
		.pluck();
	// The oldest of the tenant's claims but the one just made.
	const dropOldest = db.prepare(
		`DELETE FROM contact_form_claims WHERE rowid IN (
			SELECT rowid FROM contact_form_claims
			WHERE tenant_pk = ? AND NOT (consumer = ? AND key = ?)
			ORDER BY claimed_at, rowid LIMIT ?)`,
	);
	const purgeExpired = () => purge.run(isoIn(-CLAIM_RETENTION_MS)).changes;
	/** Inserts the claim (whether it is new) and keeps the tenant within maxPerTenant. */
	const insertWithinCap = db.transaction(
		(tenantPk: number, consumer: string, key: string, now: string): boolean => {
			if (insert.run(tenantPk, consumer, key, now).changes !== 1) return false;
			// Past the cap the oldest claims give way, expired ones (the oldest of all) first.
			const over = count.get(tenantPk)! - maxPerTenant;
			if (over > 0) dropOldest.run(tenantPk, consumer, key, over);
			return true;
		},
	);
	// Expired claims go on open and with the hourly retention purge (plugins/retention.ts).
	purgeExpired();

	return {
		/** Claims the key; `claimed` is false when an earlier claim holds it (its time is returned). */
		claim(
			tenantPk: number,
			consumer: string,
			key: string,
		): { claimed: boolean; claimed_at: string } {
			const now = nowIso();
			// One transaction: atomic however many requests race for the same key.
			const claimed = insertWithinCap(tenantPk, consumer, key, now);
			return {
				claimed,
				claimed_at: claimed ? now : (find.get(tenantPk, consumer, key)?.claimed_at ?? now),
			};
		},
		/** Deletes claims older than CLAIM_RETENTION_MS; how many. */
		purgeExpired,
		/** Gives a claim up (the work it stood for did not happen); whether one was held. */
		release(tenantPk: number, consumer: string, key: string): boolean {
			return remove.run(tenantPk, consumer, key).changes === 1;
		},
	};
}
