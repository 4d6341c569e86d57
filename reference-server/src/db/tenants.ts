import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface TenantRow {
	pk: number;
	id: string;
	fqdn: string | null;
	created_at: string;
	updated_at: string;
}

export type TenantRepository = ReturnType<typeof createTenantRepository>;

export function createTenantRepository(db: SqliteDatabase) {
	const byId = db.prepare<[string], TenantRow>('SELECT * FROM tenants WHERE id = ?');
	const byPk = db.prepare<[number], TenantRow>('SELECT * FROM tenants WHERE pk = ?');
	const insert = db.prepare(
		'INSERT INTO tenants (id, fqdn, created_at, updated_at) VALUES (?, ?, ?, ?)',
	);
	const update = db.prepare('UPDATE tenants SET id = ?, fqdn = ?, updated_at = ? WHERE pk = ?');
	const idOf = db.prepare<[number], string>('SELECT id FROM tenants WHERE pk = ?').pluck();
	const revokeTokens = db.prepare(
		'UPDATE tokens SET revoked_at = ? WHERE tenant_pk = ? AND revoked_at IS NULL',
	);
	const remove = db.prepare('DELETE FROM tenants WHERE pk = ?');
	// `search`: a fragment of the id, case-insensitive (ids are lower case); instr, not LIKE: a
	// fragment's % and _ are plain characters.
	const listPage = db.prepare<
		[string, number, number],
		Pick<TenantRow, 'id' | 'fqdn' | 'created_at'>
	>(
		'SELECT id, fqdn, created_at FROM tenants WHERE instr(id, lower(?)) > 0 ORDER BY id LIMIT ? OFFSET ?',
	);
	const countMatching = db
		.prepare<[string], number>('SELECT COUNT(*) FROM tenants WHERE instr(id, lower(?)) > 0')
		.pluck();

	return {
		findById: (id: string): TenantRow | undefined => byId.get(id),
		findByPk: (pk: number): TenantRow | undefined => byPk.get(pk),
		/** One page of the tenants whose id contains `search`, ordered by id, and how many match. */
		list(search = '', limit: number, offset: number) {
			return { tenants: listPage.all(search, limit, offset), total: countMatching.get(search)! };
		},
		/** Returns false when the id is taken. */
		create(id: string, fqdn: string | null): boolean {
			const now = nowIso();
			return db.transaction(() => {
				if (byId.get(id)) return false;
				insert.run(id, fqdn, now, now);
				return true;
			})();
		},
		/** Renames and/or changes the fqdn; every other table follows through the unchanged pk. */
		/**
		 * A rename revokes every token issued so far, in the same transaction: a token issued for a
		 * name never works again, even once the tenant takes that name back.
		 */
		update(pk: number, newId: string, fqdn: string | null): void {
			const now = nowIso();
			db.transaction(() => {
				if (idOf.get(pk) !== newId) revokeTokens.run(now, pk);
				update.run(newId, fqdn, now, pk);
			})();
		},
		/** ON DELETE CASCADE removes tokens, pages, settings, assets rows, submissions, deliveries. */
		remove(pk: number): void {
			remove.run(pk);
		},
	};
}
