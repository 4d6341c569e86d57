import type { SqliteDatabase } from './open';
import { isoIn, nowIso } from '../clock';

/** How long a claim is kept: far longer than any delivery keeps being retried. */
export const CLAIM_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Expired claims are purged once every this many new claims. */
const PURGE_EVERY = 1000;

export type ContactFormClaimRepository = ReturnType<typeof createContactFormClaimRepository>;

/**
 * Claims on contact-form submissions, keyed by tenant, consumer and key: the first claim wins, any
 * later one learns it came second. Receivers use them to start work once per submission across
 * processes. The table is created here, not in migrations.ts, so this extension stays in one place;
 * `IF NOT EXISTS` makes it safe on every start.
 */
export function createContactFormClaimRepository(db: SqliteDatabase) {
	db.exec(`
	CREATE TABLE IF NOT EXISTS contact_form_claims (
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		consumer TEXT NOT NULL,
		key TEXT NOT NULL,
		claimed_at TEXT NOT NULL,
		PRIMARY KEY (tenant_pk, consumer, key)
	);
	CREATE INDEX IF NOT EXISTS contact_form_claims_age ON contact_form_claims(claimed_at);
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
	let sincePurge = 0;

	return {
		/** Claims the key; `claimed` is false when an earlier claim holds it (its time is returned). */
		claim(
			tenantPk: number,
			consumer: string,
			key: string,
		): { claimed: boolean; claimed_at: string } {
			if (++sincePurge >= PURGE_EVERY) {
				sincePurge = 0;
				purge.run(isoIn(-CLAIM_RETENTION_MS));
			}
			const now = nowIso();
			// One statement: atomic however many requests race for the same key.
			const claimed = insert.run(tenantPk, consumer, key, now).changes === 1;
			return {
				claimed,
				claimed_at: claimed ? now : (find.get(tenantPk, consumer, key)?.claimed_at ?? now),
			};
		},
		/** Gives a claim up (the work it stood for did not happen); whether one was held. */
		release(tenantPk: number, consumer: string, key: string): boolean {
			return remove.run(tenantPk, consumer, key).changes === 1;
		},
	};
}
