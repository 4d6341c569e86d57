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

	return {
		findByHash: (hash: string): TokenLookup | undefined => byHash.get(hash),
		/**
		 * Inserts a new token, recording the tenant id it is issued for, and prunes expired tokens;
		 * with revokePrevious, earlier tokens are revoked in the same transaction.
		 */
		issue(tenantPk: number, hash: string, expiresAt: string | null, revokePrevious: boolean): void {
			const now = nowIso();
			db.transaction(() => {
				if (revokePrevious) revokeAll.run(now, tenantPk);
				pruneExpired.run(now);
				insert.run(hash, now, expiresAt, tenantPk);
			})();
		},
	};
}
