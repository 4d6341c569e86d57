import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

/** A final answer kept for replay. */
export interface StoredAnswer {
	request_hash: string;
	status: number;
	content_type: string | null;
	/** null: the answer was too large to keep (its status is kept). */
	body: string | null;
}

/** How long an answer is kept for replay. */
const ANSWER_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Final answers kept for replay per caller scope and key, until they expire. Keys of requests still
 * running are held in memory by plugins/idempotency.ts: they mean nothing after a restart, and one
 * process owns a data directory.
 */
export function createIdempotencyRepository(db: SqliteDatabase) {
	const find = db.prepare<[string, string, string], StoredAnswer>(
		`SELECT request_hash, status, content_type, body FROM idempotency_keys
		  WHERE scope = ? AND key = ? AND state = 'done' AND expires_at > ?`,
	);
	const save = db.prepare(
		`INSERT OR REPLACE INTO idempotency_keys (scope, key, request_hash, state, status, content_type, body, created_at, expires_at)
		 VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?)`,
	);
	const purgeExpired = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
	// At start-up no request is running: rows an earlier version stored for running requests go.
	db.exec(`DELETE FROM idempotency_keys WHERE state = 'in_flight'`);
	purgeExpired.run(nowIso());

	return {
		find: (scope: string, key: string) => find.get(scope, key, nowIso()),
		/** Stores (or replaces an expired) answer of the request that took the key at `takenAt`. */
		save(scope: string, key: string, answer: StoredAnswer, takenAt: number): void {
			const { request_hash, status, content_type, body } = answer;
			const created = new Date(takenAt).toISOString();
			const expires = new Date(takenAt + ANSWER_TTL_MS).toISOString();
			save.run(scope, key, request_hash, status, content_type, body, created, expires);
		},
		purgeExpired: (): number => purgeExpired.run(nowIso()).changes,
	};
}
