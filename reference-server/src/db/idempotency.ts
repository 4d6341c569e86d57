import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';
import type { GroupCommit } from './group-commit';

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
	| { kind: 'in_flight'; record: StoredResponse }
	| { kind: 'done'; record: StoredResponse };

export type IdempotencyRepository = ReturnType<typeof createIdempotencyRepository>;

/**
 * Idempotency records. Only final answers are written to the database (one INSERT per request, when
 * the answer is known). Keys of requests still running are held in memory: they used to be rows too
 * (a reservation commit, then an update), which made every POST commit three transactions; they are
 * meaningless after a restart anyway (start-up purged them), and one process owns a data directory
 * (as for the delivery worker and the page totals). See docs/performance.md.
 */
export function createIdempotencyRepository(db: SqliteDatabase, group: GroupCommit, ttlMs: number) {
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
				return {
					kind: 'in_flight',
					record: {
						request_hash: running.requestHash,
						state: 'in_flight',
						status: null,
						content_type: null,
						body: null,
						expires_at: new Date(running.reservedAt + ttlMs).toISOString(),
					},
				};
			}
			const done = getDone.get(scope, key);
			if (done && done.expires_at > new Date(now).toISOString())
				return { kind: 'done', record: done };
			const reservation: InFlightReservation = { scope, key, requestHash, reservedAt: now };
			inFlight.set(id, reservation);
			return { kind: 'reserved', reservation };
		},
		/**
		 * Stores the final answer (replacing an expired one) in the open group commit (db/group-commit.ts),
		 * with the request's own writes, and frees the reservation once that is committed; the caller
		 * answers only then. Until then the reservation still holds the key (a repeat gets the 409 of a
		 * request in progress, as its first request has not been answered yet). A reservation taken over
		 * meanwhile (stale, see reserve) stores nothing: the newer request answers for the key.
		 */
		async complete(
			reservation: InFlightReservation,
			status: number,
			contentType: string | null,
			/** null: the answer was too large to keep (its status is kept). */
			body: string | null,
		): Promise<void> {
			if (inFlight.get(mapKey(reservation.scope, reservation.key)) !== reservation) return;
			try {
				const committed = group.join();
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
				await committed;
			} finally {
				// Committed: the stored answer holds the key now. Failed: the key is free for a retry.
				free(reservation);
			}
		},
		/** Frees a reservation whose request ended without a storable response (5xx, aborted). */
		release: free,
		purgeExpired: (): number => purgeExpired.run(nowIso()).changes,
		/**
		 * At start-up no request is in flight. Reservations are kept in memory now; this removes rows
		 * that an earlier version stored for requests it was running when it stopped.
		 */
		purgeInFlight: (): number => {
			inFlight.clear();
			return purgeInFlight.run().changes;
		},
	};
}
