import type { SqliteDatabase } from './open';
import { isoIn, nowIso } from '../clock';

export interface StoredResponse {
	request_hash: string;
	state: 'in_flight' | 'done';
	status: number | null;
	content_type: string | null;
	body: string | null;
	expires_at: string;
}

export type ReserveResult =
	| { kind: 'reserved' }
	| { kind: 'in_flight'; record: StoredResponse }
	| { kind: 'done'; record: StoredResponse };

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

export function createIdempotencyRepository(db: SqliteDatabase, ttlMs: number) {
	const get = db.prepare<[string, string], StoredResponse & { created_at: string }>(
		'SELECT request_hash, state, status, content_type, body, created_at, expires_at FROM idempotency_keys WHERE scope = ? AND key = ?',
	);
	const insert = db.prepare(
		`INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'in_flight', ?, ?)`,
	);
	const remove = db.prepare('DELETE FROM idempotency_keys WHERE scope = ? AND key = ?');
	const complete = db.prepare(
		`UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, body = ? WHERE scope = ? AND key = ? AND state = 'in_flight'`,
	);
	const purgeExpired = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
	const purgeInFlight = db.prepare(`DELETE FROM idempotency_keys WHERE state = 'in_flight'`);

	return {
		/**
		 * Reserves the key for this request, or reports the record already there. Expired records, and
		 * reservations older than staleInFlightMs (their request died unanswered), are replaced.
		 */
		reserve(scope: string, key: string, requestHash: string, staleInFlightMs: number): ReserveResult {
			return db.transaction((): ReserveResult => {
				const now = nowIso();
				const existing = get.get(scope, key);
				const stale = existing?.state === 'in_flight' && existing.created_at <= isoIn(-staleInFlightMs);
				if (existing && existing.expires_at > now && !stale) {
					return existing.state === 'in_flight' ? { kind: 'in_flight', record: existing } : { kind: 'done', record: existing };
				}
				if (existing) remove.run(scope, key);
				insert.run(scope, key, requestHash, now, isoIn(ttlMs));
				return { kind: 'reserved' };
			})();
		},
		complete(scope: string, key: string, status: number, contentType: string | null, body: string): void {
			complete.run(status, contentType, body, scope, key);
		},
		/** Frees a reservation whose request ended without a storable response (5xx, aborted). */
		release(scope: string, key: string): void {
			remove.run(scope, key);
		},
		purgeExpired: (): number => purgeExpired.run(nowIso()).changes,
		/** At start-up no request is in flight: reservations left by a crash would block their keys forever. */
		purgeInFlight: (): number => purgeInFlight.run().changes,
	};
}
