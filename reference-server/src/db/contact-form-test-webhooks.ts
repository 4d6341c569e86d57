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
 * the settings so listening never displaces the live webhook. The table is created here, not in
 * migrations.ts, so this extension stays in one place; `IF NOT EXISTS` makes it safe on every start.
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
	const upsert = db.prepare(
		`INSERT INTO contact_form_test_webhooks (tenant_pk, url, headers, expires_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (tenant_pk, url) DO UPDATE SET headers = excluded.headers, expires_at = excluded.expires_at`,
	);
	const remove = db.prepare(
		'DELETE FROM contact_form_test_webhooks WHERE tenant_pk = ? AND url = ?',
	);
	const purge = db.prepare('DELETE FROM contact_form_test_webhooks WHERE expires_at <= ?');
	const live = db.prepare<[number, string], { url: string; headers: string; expires_at: string }>(
		'SELECT url, headers, expires_at FROM contact_form_test_webhooks WHERE tenant_pk = ? AND expires_at > ? ORDER BY url',
	);

	return {
		/** Sets (or renews) a test webhook for ttlMs; returns it as shown. */
		put(
			tenantPk: number,
			url: string,
			headers: Record<string, string>,
			ttlMs: number,
		): TestWebhook {
			purge.run(nowIso());
			const expiresAt = isoIn(ttlMs);
			upsert.run(tenantPk, url, JSON.stringify(headers), expiresAt);
			return { url, expires_at: expiresAt };
		},
		/** Removes one; whether it was there. */
		remove(tenantPk: number, url: string): boolean {
			return remove.run(tenantPk, url).changes === 1;
		},
		/** The tenant's test webhooks that have not expired, as shown. */
		list(tenantPk: number): TestWebhook[] {
			return live.all(tenantPk, nowIso()).map(({ url, expires_at }) => ({ url, expires_at }));
		},
		/** Where copies of a new submission go now. */
		targets(tenantPk: number): TestWebhookTarget[] {
			return live.all(tenantPk, nowIso()).map(({ url, headers }) => ({
				url,
				headers: JSON.parse(headers) as Record<string, string>,
			}));
		},
	};
}
