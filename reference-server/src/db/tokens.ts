import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface TokenLookup {
	tenant_pk: number;
	tenant_id: string;
	/** The tenant id when the token was issued; null for tokens issued before it was recorded. */
	issued_for: string | null;
	expires_at: string | null;
	revoked_at: string | null;
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;

/** Only SHA-256 hashes of tenant tokens are ever stored. */
export function createTokenRepository(db: SqliteDatabase) {
	const byHash = db.prepare<[string], TokenLookup>(
		`SELECT t.tenant_pk, tn.id AS tenant_id, t.issued_for, t.expires_at, t.revoked_at
		   FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk
		  WHERE t.token_hash = ?`,
	);
	const revokeAll = db.prepare(
		'UPDATE tokens SET revoked_at = ? WHERE tenant_pk = ? AND revoked_at IS NULL',
	);
	const insert = db.prepare(
		`INSERT INTO tokens (tenant_pk, token_hash, issued_for, created_at, expires_at)
		 SELECT pk, ?, id, ?, ? FROM tenants WHERE pk = ?`,
	);
	const pruneExpired = db.prepare(
		'DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ?',
	);

	/**
	 * Known token hashes -> their row, so that a request's authentication is a map lookup instead of a
	 * query (a few % of the server's CPU per request; see docs/performance.md). Token and tenant rows
	 * change only through this repository (issue, revoke, prune) and the tenant repository (rename,
	 * delete), which calls invalidate(), so a revocation takes effect with the very next request. A
	 * new token is not in the cache yet, so issuing one leaves every other caller's entry alone; a
	 * revocation drops the entries of its tenant. Expiry is checked by the caller on every request
	 * (a pruned token was expired already). Unknown hashes are not cached (no memory for guesses).
	 */
	const cache = new Map<string, TokenLookup>();
	const CACHE_LIMIT = 10_000;

	return {
		findByHash(hash: string): TokenLookup | undefined {
			const cached = cache.get(hash);
			if (cached) return cached;
			const found = byHash.get(hash);
			if (found) {
				if (cache.size >= CACHE_LIMIT) cache.clear();
				cache.set(hash, found);
			}
			return found;
		},
		/**
		 * Inserts a new token, recording the tenant id it is issued for, and prunes expired tokens;
		 * with revokePrevious, earlier tokens are revoked in the same transaction.
		 */
		issue(tenantPk: number, hash: string, expiresAt: string | null, revokePrevious: boolean): void {
			const now = nowIso();
			try {
				db.transaction(() => {
					if (revokePrevious) revokeAll.run(now, tenantPk);
					pruneExpired.run(now);
					insert.run(hash, now, expiresAt, tenantPk);
				})();
			} finally {
				if (revokePrevious) {
					for (const [key, row] of cache) if (row.tenant_pk === tenantPk) cache.delete(key);
				}
			}
		},
		/** Forgets every cached lookup: a tenant was renamed or deleted (its tokens cascade). */
		invalidate(): void {
			cache.clear();
		},
	};
}
