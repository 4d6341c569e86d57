import type Database from 'better-sqlite3';
import { migratePageUrls, type PageUrlChange } from './page-url-migration';

/**
 * Numbered migrations; SQLite's `user_version` records how many have run. Append new entries, never edit
 * old ones: existing data directories replay only what they have not seen.
 *
 * Tenants have an internal integer key (`pk`) that every other table references, so a rename (PUT
 * /api/tenant with old_id) touches one row and asset files, stored under the pk, never move.
 */
type Migration = string | ((db: Database.Database, report: MigrationReport) => void);

/** Told what a migration changed in the data (today: page urls moved), to be logged. */
export type MigrationReport = (change: PageUrlChange) => void;

/** Moves every page url today's rule changes or refuses, reporting each move. */
const pageUrlsToTodaysRule = (db: Database.Database, report: MigrationReport) => {
	for (const change of migratePageUrls(db)) report(change);
};

const MIGRATIONS: Migration[] = [
	`
	CREATE TABLE tenants (
		pk INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		fqdn TEXT,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);

	CREATE TABLE tokens (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		token_hash TEXT NOT NULL UNIQUE,
		created_at TEXT NOT NULL,
		expires_at TEXT,
		revoked_at TEXT
	);
	CREATE INDEX tokens_tenant ON tokens(tenant_pk);

	CREATE TABLE pages (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		url TEXT NOT NULL,
		name TEXT NOT NULL,
		locale TEXT NOT NULL,
		meta_title TEXT,
		meta_description TEXT,
		draft INTEGER NOT NULL DEFAULT 0,
		templates TEXT NOT NULL DEFAULT '[]',
		banner TEXT,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		deleted_at TEXT,
		UNIQUE (tenant_pk, url)
	);

	CREATE TABLE settings (
		tenant_pk INTEGER PRIMARY KEY REFERENCES tenants(pk) ON DELETE CASCADE,
		google_code TEXT,
		noindex INTEGER NOT NULL DEFAULT 0,
		statistics_iframe TEXT,
		contact_form_webhook_url TEXT,
		contact_form_webhook_headers TEXT,
		updated_at TEXT NOT NULL
	);

	CREATE TABLE notifications (
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		id TEXT NOT NULL,
		message TEXT NOT NULL,
		status TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		PRIMARY KEY (tenant_pk, id)
	);

	CREATE TABLE variables (
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		key TEXT NOT NULL,
		value TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		PRIMARY KEY (tenant_pk, key)
	);

	CREATE TABLE assets (
		id TEXT PRIMARY KEY,
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		name TEXT NOT NULL,
		file_name TEXT NOT NULL,
		mime_type TEXT NOT NULL,
		size INTEGER NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE INDEX assets_tenant ON assets(tenant_pk);

	CREATE TABLE submissions (
		id TEXT PRIMARY KEY,
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		form TEXT NOT NULL,
		fields TEXT NOT NULL,
		submitted_at TEXT NOT NULL
	);

	-- The outbox: written in the same transaction as its submission, worked off by the delivery worker.
	CREATE TABLE deliveries (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		submission_id TEXT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
		tenant_pk INTEGER NOT NULL REFERENCES tenants(pk) ON DELETE CASCADE,
		state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
		attempts INTEGER NOT NULL DEFAULT 0,
		last_status INTEGER,
		last_error TEXT,
		next_attempt_at TEXT,
		delivered_at TEXT,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);
	CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
	CREATE INDEX deliveries_tenant ON deliveries(tenant_pk, seq);

	CREATE TABLE idempotency_keys (
		scope TEXT NOT NULL,
		key TEXT NOT NULL,
		request_hash TEXT NOT NULL,
		state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
		status INTEGER,
		content_type TEXT,
		body TEXT,
		created_at TEXT NOT NULL,
		expires_at TEXT NOT NULL,
		PRIMARY KEY (scope, key)
	);
	CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);
	`,
	// 2. Page listings (GET /api/pages: live pages of one tenant in creation order) read one tenant's
	// rows, not the whole table: this index serves the page query (in id order, no sort) and its
	// COUNT(*) (covering).
	`
	CREATE INDEX pages_live ON pages(tenant_pk, deleted_at, id);
	`,
	// 3. Page urls written before canonical urls, brought to today's rule (db/page-url-migration.ts).
	pageUrlsToTodaysRule,
	// 4. Tokens remember the tenant id they were issued for: one issued before a rename no longer
	// works (a client that minted for the old name must never reach the renamed tenant, nor a new
	// tenant of that name). Expired tokens are pruned on each issue, by this index.
	`
	ALTER TABLE tokens ADD COLUMN issued_for TEXT;
	CREATE INDEX tokens_expiry ON tokens(expires_at);
	`,
	// 5. Page urls holding a default-ignorable code point (refused since: lib/page-url.ts), each moved
	// and reported as in 3; no page is dropped.
	pageUrlsToTodaysRule,
];

export function runMigrations(db: Database.Database, report: MigrationReport = () => {}): void {
	const current = db.pragma('user_version', { simple: true }) as number;
	if (current > MIGRATIONS.length) {
		throw new Error(
			`The database schema (version ${current}) is newer than this server understands (${MIGRATIONS.length}).`,
		);
	}
	for (let index = current; index < MIGRATIONS.length; index++) {
		db.transaction(() => {
			const migration = MIGRATIONS[index];
			if (typeof migration === 'string') db.exec(migration);
			else migration(db, report);
			db.pragma(`user_version = ${index + 1}`);
		})();
	}
}
