import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

export interface Settings {
	google_code: string | null;
	noindex: 0 | 1;
	statistics_iframe: string | null;
	contact_form_webhook_url: string | null;
	contact_form_webhook_headers: Record<string, string> | null;
}

/** As stored: the headers as JSON text. */
type SettingsRow = Omit<Settings, 'contact_form_webhook_headers'> & {
	contact_form_webhook_headers: string | null;
};

const DEFAULT_SETTINGS: Settings = {
	google_code: null,
	noindex: 0,
	statistics_iframe: null,
	contact_form_webhook_url: null,
	contact_form_webhook_headers: null,
};

function toSettings(row: SettingsRow | undefined): Settings {
	if (!row) return { ...DEFAULT_SETTINGS };
	const headers = row.contact_form_webhook_headers;
	return { ...row, contact_form_webhook_headers: headers === null ? null : JSON.parse(headers) };
}

export type SettingsRepository = ReturnType<typeof createSettingsRepository>;

/** One row per tenant, created on first save; a tenant that never saved reads the defaults. */
export function createSettingsRepository(db: SqliteDatabase) {
	const get = db.prepare<[number], SettingsRow>(
		`SELECT google_code, noindex, statistics_iframe, contact_form_webhook_url, contact_form_webhook_headers
		   FROM settings WHERE tenant_pk = ?`,
	);
	const upsert = db.prepare(
		`INSERT INTO settings (tenant_pk, google_code, noindex, statistics_iframe, contact_form_webhook_url, contact_form_webhook_headers, updated_at)
		 VALUES (@tenant_pk, @google_code, @noindex, @statistics_iframe, @contact_form_webhook_url, @contact_form_webhook_headers, @updated_at)
		 ON CONFLICT (tenant_pk) DO UPDATE SET
		   google_code = excluded.google_code, noindex = excluded.noindex, statistics_iframe = excluded.statistics_iframe,
		   contact_form_webhook_url = excluded.contact_form_webhook_url,
		   contact_form_webhook_headers = excluded.contact_form_webhook_headers, updated_at = excluded.updated_at`,
	);

	return {
		get: (tenantPk: number): Settings => toSettings(get.get(tenantPk)),
		/** Fields absent from `changes` keep their value. */
		save(tenantPk: number, changes: Partial<Settings>): Settings {
			return db.transaction(() => {
				const merged: Settings = { ...toSettings(get.get(tenantPk)), ...changes };
				upsert.run({
					...merged,
					tenant_pk: tenantPk,
					contact_form_webhook_headers:
						merged.contact_form_webhook_headers === null
							? null
							: JSON.stringify(merged.contact_form_webhook_headers),
					updated_at: nowIso(),
				});
				return merged;
			})();
		},
	};
}
