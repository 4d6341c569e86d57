import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

interface PageRow {
	id: number;
	tenant_pk: number;
	url: string;
	name: string;
	locale: string;
	meta_title: string | null;
	meta_description: string | null;
	draft: number;
	templates: string;
	banner: string | null;
	created_at: string;
	updated_at: string;
	deleted_at: string | null;
}

/** The page as the API shows it. */
export interface Page {
	url: string;
	name: string;
	locale: string;
	meta_title: string | null;
	meta_description: string | null;
	draft: boolean;
	templates: Record<string, unknown>[];
	banner: Record<string, unknown> | null;
	created_at: string;
	updated_at: string;
}

export interface NewPage {
	url: string;
	name: string;
	locale: string;
	meta_title: string | null;
	meta_description: string | null;
	draft: boolean;
}

export interface PageFilter {
	url?: string;
	locale?: string;
	draft?: boolean;
}

export interface SitemapEntry {
	url: string;
	name: string;
	locale: string;
	updated_at: string;
}

function toPage(row: PageRow): Page {
	return {
		url: row.url,
		name: row.name,
		locale: row.locale,
		meta_title: row.meta_title,
		meta_description: row.meta_description,
		draft: row.draft === 1,
		templates: JSON.parse(row.templates) as Record<string, unknown>[],
		banner: row.banner === null ? null : (JSON.parse(row.banner) as Record<string, unknown>),
		created_at: row.created_at,
		updated_at: row.updated_at,
	};
}

export type PageRepository = ReturnType<typeof createPageRepository>;

/**
 * A default delete sets deleted_at: the row stays (its data is kept on the server) but it is out of
 * listings, the sitemap and content updates. Creating a page at the url of a soft-deleted page replaces
 * that archived row, so a url is never blocked by a deleted page.
 */
export function createPageRepository(db: SqliteDatabase) {
	const anyByUrl = db.prepare<[number, string], PageRow>('SELECT * FROM pages WHERE tenant_pk = ? AND url = ?');
	const removeRow = db.prepare('DELETE FROM pages WHERE id = ?');
	const insert = db.prepare(
		`INSERT INTO pages (tenant_pk, url, name, locale, meta_title, meta_description, draft, templates, banner, created_at, updated_at)
		 VALUES (@tenant_pk, @url, @name, @locale, @meta_title, @meta_description, @draft, '[]', NULL, @now, @now)`,
	);
	const softDelete = db.prepare('UPDATE pages SET deleted_at = ? WHERE id = ?');
	const setContent = db.prepare('UPDATE pages SET templates = ?, banner = ?, updated_at = ? WHERE id = ?');
	const setTemplates = db.prepare('UPDATE pages SET templates = ?, updated_at = ? WHERE id = ?');
	const byId = db.prepare<[number], PageRow>('SELECT * FROM pages WHERE id = ?');

	// The list and sitemap queries vary with the filters; each variant is prepared once.
	const statements = new Map<string, Statement<unknown[]>>();
	function prepared(sql: string): Statement<unknown[]> {
		let statement = statements.get(sql);
		if (!statement) {
			statement = db.prepare<unknown[]>(sql);
			statements.set(sql, statement);
		}
		return statement;
	}

	/**
	 * Totals of list queries per tenant, keyed by query and filter values. Counting walks every live
	 * page of the tenant, which made each GET /api/pages cost O(pages) even for the first page of 20
	 * (a 20,000-page tenant: ~1 ms of the event loop per request; see bench/ and docs/performance.md).
	 * Page rows are written only here (and removed by a tenant's cascade delete, after which its pk is
	 * never used again: AUTOINCREMENT), so create and delete drop the tenant's totals and the cache
	 * stays exact. One process owns a data directory, as for the delivery worker.
	 */
	const totals = new Map<number, Map<string, number>>();
	function cachedTotal(tenantPk: number, sql: string, params: unknown[]): number {
		let forTenant = totals.get(tenantPk);
		if (!forTenant) {
			forTenant = new Map();
			totals.set(tenantPk, forTenant);
		}
		const key = `${sql}\u0000${JSON.stringify(params)}`;
		let total = forTenant.get(key);
		if (total === undefined) {
			total = (prepared(sql).get(tenantPk, ...params) as { n: number }).n;
			forTenant.set(key, total);
		}
		return total;
	}

	function whereClause(filter: PageFilter): { sql: string; params: unknown[] } {
		const parts = ['tenant_pk = ?', 'deleted_at IS NULL'];
		const params: unknown[] = [];
		if (filter.url !== undefined) {
			parts.push('url = ?');
			params.push(filter.url);
		}
		if (filter.locale !== undefined) {
			parts.push('locale = ?');
			params.push(filter.locale);
		}
		if (filter.draft !== undefined) {
			parts.push('draft = ?');
			params.push(filter.draft ? 1 : 0);
		}
		return { sql: parts.join(' AND '), params };
	}

	return {
		findLive(tenantPk: number, url: string): Page | undefined {
			const row = anyByUrl.get(tenantPk, url);
			return row && row.deleted_at === null ? toPage(row) : undefined;
		},
		/** Filtered page of live pages in creation order. */
		list(tenantPk: number, filter: PageFilter, limit: number, offset: number): { pages: Page[]; total: number } {
			const where = whereClause(filter);
			const total = cachedTotal(tenantPk, `SELECT COUNT(*) AS n FROM pages WHERE ${where.sql}`, where.params);
			const rows = prepared(`SELECT * FROM pages WHERE ${where.sql} ORDER BY id LIMIT ? OFFSET ?`)
				.all(tenantPk, ...where.params, limit, offset) as PageRow[];
			return { pages: rows.map(toPage), total };
		},
		/** Returns undefined when a live page already has this url. */
		create(tenantPk: number, page: NewPage): Page | undefined {
			totals.delete(tenantPk);
			return db.transaction(() => {
				const existing = anyByUrl.get(tenantPk, page.url);
				if (existing && existing.deleted_at === null) return undefined;
				if (existing) removeRow.run(existing.id);
				const result = insert.run({ ...page, tenant_pk: tenantPk, draft: page.draft ? 1 : 0, now: nowIso() });
				return toPage(byId.get(Number(result.lastInsertRowid)) as PageRow);
			})();
		},
		/**
		 * Default delete of a live page, or permanent erase of a live or soft-deleted one.
		 * Returns false when there is nothing to delete.
		 */
		delete(tenantPk: number, url: string, permanently: boolean): boolean {
			totals.delete(tenantPk);
			return db.transaction(() => {
				const existing = anyByUrl.get(tenantPk, url);
				if (!existing) return false;
				if (permanently) {
					removeRow.run(existing.id);
					return true;
				}
				if (existing.deleted_at !== null) return false;
				softDelete.run(nowIso(), existing.id);
				return true;
			})();
		},
		/** banner undefined keeps the current banner. Returns undefined for an unknown or deleted page. */
		updateContent(tenantPk: number, url: string, templates: unknown[], banner: unknown): Page | undefined {
			return db.transaction(() => {
				const existing = anyByUrl.get(tenantPk, url);
				if (!existing || existing.deleted_at !== null) return undefined;
				const now = nowIso();
				if (banner === undefined) setTemplates.run(JSON.stringify(templates), now, existing.id);
				else setContent.run(JSON.stringify(templates), banner === null ? null : JSON.stringify(banner), now, existing.id);
				return toPage(byId.get(existing.id) as PageRow);
			})();
		},
		/** Published pages (not draft, not deleted) ordered by url. */
		sitemap(tenantPk: number, locale?: string): SitemapEntry[] {
			const sql = `SELECT url, name, locale, updated_at FROM pages
			              WHERE tenant_pk = ? AND deleted_at IS NULL AND draft = 0 ${locale !== undefined ? 'AND locale = ?' : ''}
			              ORDER BY url`;
			const params: unknown[] = locale !== undefined ? [tenantPk, locale] : [tenantPk];
			return prepared(sql).all(...params) as SitemapEntry[];
		},
	};
}
