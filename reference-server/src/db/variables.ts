import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface Variable {
	key: string;
	value: string;
}

export type VariableRepository = ReturnType<typeof createVariableRepository>;

export function createVariableRepository(db: SqliteDatabase) {
	const list = db.prepare<[number], Variable>(
		'SELECT key, value FROM variables WHERE tenant_pk = ? ORDER BY key',
	);
	const upsert = db.prepare(
		`INSERT INTO variables (tenant_pk, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (tenant_pk, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
	);
	const remove = db.prepare('DELETE FROM variables WHERE tenant_pk = ? AND key = ?');
	const usageExcept = db.prepare<[number, string], { count: number; bytes: number }>(
		`SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(CAST(key AS BLOB)) + LENGTH(CAST(value AS BLOB))), 0) AS bytes
		 FROM variables WHERE tenant_pk = ? AND key <> ?`,
	);

	return {
		list: (tenantPk: number): Variable[] => list.all(tenantPk),
		save(tenantPk: number, key: string, value: string): Variable {
			const now = nowIso();
			upsert.run(tenantPk, key, value, now, now);
			return { key, value };
		},
		/** Count and UTF-8 bytes (keys and values) of the tenant's variables other than `key`. */
		usageExcept: (tenantPk: number, key: string) => usageExcept.get(tenantPk, key)!,
		/** Returns false for an unknown key. */
		remove: (tenantPk: number, key: string): boolean => remove.run(tenantPk, key).changes > 0,
	};
}
