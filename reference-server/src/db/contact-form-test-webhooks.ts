import type { SqliteDatabase } from './open';
import { isoIn, nowIso } from '../clock';

/** A test webhook as the routes show it: never its headers (they carry a secret). */
export interface TestWebhook {
	url: string;
	expires_at: string;
}

/** What sending a copy needs. */
export interface TestWebhookTarget {
	url: string;
	headers: Record<string, string>;
}

export type ContactFormTestWebhookRepository = ReturnType<
	typeof createContactFormTestWebhookRepository
>;

/**
 * Test webhooks: URLs that get a copy of each contact-form submission for a while, beside the
 * configured webhook (an editor listening for a test event), keyed by tenant and URL. Kept apart from
 * the settings so listening never displaces the live webhook. Each is tied to the token that
 * registered it: once that token is revoked or expired, it is listed no more and gets no copy. The
 * table is created here, not in migrations.ts, so this extension stays in one place; `IF NOT EXISTS`
 * makes it safe on every start.
 */
export function createContactFormTestWebhookRepository(db: SqliteDatabase) {
	db.exec(`
	CREATE TABLE IF NOT EXISTS contact_form_test_webhooks (
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		url TEXT NOT NULL,
		headers TEXT NOT NULL,
		expires_at TEXT NOT NULL,
		PRIMARY KEY (tenant_pk, url)
	);
	`);
	const columns = db.prepare('PRAGMA table_info(contact_form_test_webhooks)').all() as Array<{
		name: string;
	}>;
	// Tables made before registrations were tied to their token: such rows count as ended.
	if (!columns.some((column) => column.name === 'token_hash'))
		db.exec('ALTER TABLE contact_form_test_webhooks ADD COLUMN token_hash TEXT');
	const upsert = db.prepare(
		`INSERT INTO contact_form_test_webhooks (tenant_pk, url, headers, expires_at, token_hash) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (tenant_pk, url) DO UPDATE SET headers = excluded.headers, expires_at = excluded.expires_at, token_hash = excluded.token_hash`,
	);
	const remove = db.prepare(
		'DELETE FROM contact_form_test_webhooks WHERE tenant_pk = ? AND url = ?',
	);
	const purge = db.prepare('DELETE FROM contact_form_test_webhooks WHERE expires_at <= ?');
	// Live: not expired, and the token that registered it is neither revoked nor expired.
	const live = db.prepare<
		[number, string, string],
		{ url: string; headers: string; expires_at: string }
	>(
		`SELECT w.url, w.headers, w.expires_at FROM contact_form_test_webhooks w
		   JOIN tokens k ON k.token_hash = w.token_hash AND k.tenant_pk = w.tenant_pk
		  WHERE w.tenant_pk = ? AND w.expires_at > ? AND k.revoked_at IS NULL
		    AND (k.expires_at IS NULL OR k.expires_at > ?)
		  ORDER BY w.url`,
	);

	return {
		/** Sets (or renews) a test webhook for ttlMs; returns it as shown. */
		put(
			tenantPk: number,
			url: string,
			headers: Record<string, string>,
			ttlMs: number,
			tokenHash: string,
		): TestWebhook {
			purge.run(nowIso());
			const expiresAt = isoIn(ttlMs);
			upsert.run(tenantPk, url, JSON.stringify(headers), expiresAt, tokenHash);
			return { url, expires_at: expiresAt };
		},
		/** How many live test webhooks the tenant has, not counting `exceptUrl` (a renewal). */
		countLive(tenantPk: number, exceptUrl: string): number {
			const now = nowIso();
			return live.all(tenantPk, now, now).filter((row) => row.url !== exceptUrl).length;
		},
		/** Removes one; whether it was there. */
		remove(tenantPk: number, url: string): boolean {
			return remove.run(tenantPk, url).changes === 1;
		},
		/** The tenant's test webhooks that have not expired, as shown. */
		list(tenantPk: number): TestWebhook[] {
			const now = nowIso();
			return live.all(tenantPk, now, now).map(({ url, expires_at }) => ({ url, expires_at }));
		},
		/** Where copies of a new submission go now. */
		targets(tenantPk: number): TestWebhookTarget[] {
			const now = nowIso();
			return live.all(tenantPk, now, now).map(({ url, headers }) => ({
				url,
				headers: JSON.parse(headers) as Record<string, string>,
			}));
		},
	};
}
