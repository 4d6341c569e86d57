import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface TokenLookup {
	tenant_pk: number;
	tenant_id: string;
	expires_at: string | null;
	revoked_at: string | null;
}

export type TokenRepository = ReturnType<typeof createTokenRepository>;

/** Only SHA-256 hashes of tenant tokens are ever stored. */
export function createTokenRepository(db: SqliteDatabase) {
	const byHash = db.prepare<[string], TokenLookup>(
		`SELECT t.tenant_pk, tn.id AS tenant_id, t.expires_at, t.revoked_at
		   FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk
		  WHERE t.token_hash = ?`,
	);
	const revokeAll = db.prepare(
		'UPDATE tokens SET revoked_at = ? WHERE tenant_pk = ? AND revoked_at IS NULL',
	);
	const insert = db.prepare(
		'INSERT INTO tokens (tenant_pk, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?)',
	);

	return {
		findByHash: (hash: string): TokenLookup | undefined => byHash.get(hash),
		/** Inserts a new token; with revokePrevious, earlier tokens are revoked in the same transaction. */
		issue(tenantPk: number, hash: string, expiresAt: string | null, revokePrevious: boolean): void {
			const now = nowIso();
			db.transaction(() => {
				if (revokePrevious) revokeAll.run(now, tenantPk);
				insert.run(tenantPk, hash, now, expiresAt);
			})();
		},
	};
}
