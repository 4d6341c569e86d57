import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface AssetRow {
	id: string;
	tenant_pk: number;
	/** Display name (the `name` part or the client's file name), metadata only. */
	name: string;
	/** Sanitised name used as the URL's last segment; never a path on disk. */
	file_name: string;
	mime_type: string;
	size: number;
	created_at: string;
}

export type AssetRepository = ReturnType<typeof createAssetRepository>;

export function createAssetRepository(db: SqliteDatabase) {
	const insert = db.prepare(
		'INSERT INTO assets (id, tenant_pk, name, file_name, mime_type, size, created_at) VALUES (@id, @tenant_pk, @name, @file_name, @mime_type, @size, @created_at)',
	);
	const byId = db.prepare<[string], AssetRow>('SELECT * FROM assets WHERE id = ?');
	const usedBytes = db.prepare<[number], { bytes: number }>(
		'SELECT COALESCE(SUM(size), 0) AS bytes FROM assets WHERE tenant_pk = ?',
	);

	return {
		create(asset: Omit<AssetRow, 'created_at'>): AssetRow {
			const row = { ...asset, created_at: nowIso() };
			insert.run(row);
			return row;
		},
		findById: (id: string): AssetRow | undefined => byId.get(id),
		/** Bytes of the tenant's stored uploads (its quota's use). */
		usedBytes: (tenantPk: number): number => usedBytes.get(tenantPk)!.bytes,
	};
}
