import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface StoredResponse {
	request_hash: string;
	state: 'in_flight' | 'done';
	status: number | null;
	content_type: string | null;
	body: string | null;
	expires_at: string;
}

/** A request holding its key while it runs. Only in memory: see createIdempotencyRepository. */
export interface InFlightReservation {
	readonly scope: string;
	readonly key: string;
	readonly requestHash: string;
	/** Date.now() when reserved; the stored answer expires ttl after this. */
	readonly reservedAt: number;
}

export type ReserveResult =
	| { kind: 'reserved'; reservation: InFlightReservation }
	| { kind: 'in_flight'; requestHash: string }
	| { kind: 'done'; record: StoredResponse };

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

/**
 * Idempotency records. Only final answers are stored; keys of requests still running are held in
 * memory, as they mean nothing after a restart (start-up purges them) and one process owns a data
 * directory.
 */
export function createIdempotencyRepository(db: SqliteDatabase, ttlMs: number) {
	const getDone = db.prepare<[string, string], StoredResponse>(
		`SELECT request_hash, state, status, content_type, body, expires_at FROM idempotency_keys WHERE scope = ? AND key = ? AND state = 'done'`,
	);
	const storeDone = db.prepare(
		`INSERT OR REPLACE INTO idempotency_keys (scope, key, request_hash, state, status, content_type, body, created_at, expires_at)
		 VALUES (?, ?, ?, 'done', ?, ?, ?, ?, ?)`,
	);
	const purgeExpired = db.prepare('DELETE FROM idempotency_keys WHERE expires_at <= ?');
	const purgeInFlight = db.prepare(`DELETE FROM idempotency_keys WHERE state = 'in_flight'`);
	const inFlight = new Map<string, InFlightReservation>();
	const mapKey = (scope: string, key: string) => `${scope}\n${key}`;
	/** Drops the reservation unless a newer request has taken the key over meanwhile. */
	const free = (reservation: InFlightReservation): void => {
		const id = mapKey(reservation.scope, reservation.key);
		if (inFlight.get(id) === reservation) inFlight.delete(id);
	};

	return {
		/**
		 * Reserves the key for this request, or reports what holds it: a request still running, or a
		 * stored answer. Expired answers, and reservations older than staleInFlightMs (their request died
		 * unanswered), are replaced.
		 */
		reserve(
			scope: string,
			key: string,
			requestHash: string,
			staleInFlightMs: number,
		): ReserveResult {
			const now = Date.now();
			const id = mapKey(scope, key);
			const running = inFlight.get(id);
			if (running && running.reservedAt > now - staleInFlightMs) {
				return { kind: 'in_flight', requestHash: running.requestHash };
			}
			const done = getDone.get(scope, key);
			if (done && done.expires_at > new Date(now).toISOString())
				return { kind: 'done', record: done };
			const reservation: InFlightReservation = { scope, key, requestHash, reservedAt: now };
			inFlight.set(id, reservation);
			return { kind: 'reserved', reservation };
		},
		/**
		 * Stores the final answer (replacing an expired one) and frees the reservation. A reservation
		 * taken over meanwhile (stale, see reserve) stores nothing: the newer request answers for the key.
		 */
		complete(
			reservation: InFlightReservation,
			status: number,
			contentType: string | null,
			/** null: the answer was too large to keep (its status is kept). */
			body: string | null,
		): void {
			if (inFlight.get(mapKey(reservation.scope, reservation.key)) !== reservation) return;
			try {
				storeDone.run(
					reservation.scope,
					reservation.key,
					reservation.requestHash,
					status,
					contentType,
					body,
					new Date(reservation.reservedAt).toISOString(),
					new Date(reservation.reservedAt + ttlMs).toISOString(),
				);
			} finally {
				// Stored: the answer holds the key now. Failed: the key is free for a retry.
				free(reservation);
			}
		},
		/** Frees a reservation whose request ended without a storable response (5xx, aborted). */
		release: free,
		purgeExpired: (): number => purgeExpired.run(nowIso()).changes,
		/** At start-up no request is in flight: rows an earlier version stored for running requests go. */
		purgeInFlight: (): number => {
			inFlight.clear();
			return purgeInFlight.run().changes;
		},
	};
}
