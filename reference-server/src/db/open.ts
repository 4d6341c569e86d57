import Database from 'better-sqlite3';
import { type MigrationReport, runMigrations } from './migrations';

export type SqliteDatabase = Database.Database;

/** Opens (creating if needed) the store and brings its schema up to date. `file` may be ':memory:'. */
export function openDatabase(file: string, report?: MigrationReport): SqliteDatabase {
	const db = new Database(file);
	// WAL lets readers proceed while the single writer commits (irrelevant but harmless for :memory:).
	db.pragma('journal_mode = WAL');
	db.pragma('synchronous = NORMAL');
	db.pragma('foreign_keys = ON');
	// Another process (a second server on the same data dir, a sqlite3 shell) may hold the lock briefly.
	db.pragma('busy_timeout = 5000');
	runMigrations(db, report);
	return db;
}
