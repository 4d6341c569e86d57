import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface Notification {
	id: string;
	message: string;
	status: string;
	created_at: string;
	updated_at: string;
}

export type NotificationRepository = ReturnType<typeof createNotificationRepository>;

export function createNotificationRepository(db: SqliteDatabase) {
	// The same id again replaces message and status (progress of one job); created_at stays the first one.
	const upsert = db.prepare(
		`INSERT INTO notifications (tenant_pk, id, message, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT (tenant_pk, id) DO UPDATE SET message = excluded.message, status = excluded.status, updated_at = excluded.updated_at`,
	);
	const get = db.prepare<[number, string], Notification>(
		'SELECT id, message, status, created_at, updated_at FROM notifications WHERE tenant_pk = ? AND id = ?',
	);
	const list = db.prepare<[number], Notification>(
		'SELECT id, message, status, created_at, updated_at FROM notifications WHERE tenant_pk = ? ORDER BY updated_at DESC, id',
	);

	return {
		save(tenantPk: number, id: string, message: string, status: string): Notification {
			const now = nowIso();
			return db.transaction(() => {
				upsert.run(tenantPk, id, message, status, now, now);
				return get.get(tenantPk, id) as Notification;
			})();
		},
		list: (tenantPk: number): Notification[] => list.all(tenantPk),
	};
}
