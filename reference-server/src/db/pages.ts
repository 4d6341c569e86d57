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

export interface NewPage {
	url: string;
	name: string;
	locale: string;
	meta_title: string | null;
	meta_description: string | null;
	draft: boolean;
}

/** The page as the API shows it. */
export interface Page extends NewPage {
	templates: Record<string, unknown>[];
	banner: Record<string, unknown> | null;
	created_at: string;
	updated_at: string;
}

export interface PageFilter {
	url?: string;
	locale?: string;
	/** 0/1 as service-api.md writes flags. */
	draft?: boolean | 0 | 1;
	/** A text fragment of the name or url, case-insensitive (the editor's page picker). */
	search?: string;
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
		templates:
			row.templates === '[]' ? [] : (JSON.parse(row.templates) as Record<string, unknown>[]),
		banner: row.banner === null ? null : (JSON.parse(row.banner) as Record<string, unknown>),
		created_at: row.created_at,
		updated_at: row.updated_at,
	};
}

/** What a content update gives: the page written, or (a precondition that did not hold) its current version. */
export type ContentUpdate =
	| { page: Omit<Page, 'templates'>; templatesJson: string; stale?: undefined }
	| { stale: { updated_at: string } };

/**
 * Now, or a millisecond past the version before when the clock has not moved on since: each content
 * update gives the page a new updated_at, so the version a caller read tells every later write apart.
 */
function laterThan(previous: string): string {
	const now = nowIso();
	if (now > previous) return now;
	return new Date(Date.parse(previous) + 1).toISOString();
}

export type PageRepository = ReturnType<typeof createPageRepository>;

/**
 * A default delete sets deleted_at: the row stays (its data is kept on the server) but it is out of
 * listings, the sitemap and content updates. Creating a page at the url of a soft-deleted page replaces
 * that archived row, so a url is never blocked by a deleted page.
 */
export function createPageRepository(db: SqliteDatabase) {
	const anyByUrl = db.prepare<[number, string], PageRow>(
		'SELECT * FROM pages WHERE tenant_pk = ? AND url = ?',
	);
	const removeRow = db.prepare('DELETE FROM pages WHERE id = ?');
	const insertNew = db.prepare(
		`INSERT OR IGNORE INTO pages (tenant_pk, url, name, locale, meta_title, meta_description, draft, templates, banner, created_at, updated_at)
		 VALUES (@tenant_pk, @url, @name, @locale, @meta_title, @meta_description, @draft, '[]', NULL, @now, @now)`,
	);
	const softDelete = db.prepare('UPDATE pages SET deleted_at = ? WHERE id = ?');
	const setContent = db.prepare(
		'UPDATE pages SET templates = ?, banner = ?, updated_at = ? WHERE id = ?',
	);
	/** A page row without its templates (which may be megabytes). */
	const metaByUrl = db.prepare<[number, string], Omit<PageRow, 'templates'>>(
		'SELECT id, tenant_pk, url, name, locale, meta_title, meta_description, draft, banner, created_at, updated_at, deleted_at FROM pages WHERE tenant_pk = ? AND url = ?',
	);

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
		if (filter.search !== undefined && filter.search !== '') {
			// instr, not LIKE: a fragment's % and _ are plain characters.
			const fragment = filter.search.toLowerCase();
			parts.push('(instr(lower(name), ?) > 0 OR instr(lower(url), ?) > 0)');
			params.push(fragment, fragment);
		}
		return { sql: parts.join(' AND '), params };
	}

	return {
		findLive(tenantPk: number, url: string): Page | undefined {
			const row = anyByUrl.get(tenantPk, url);
			return row && row.deleted_at === null ? toPage(row) : undefined;
		},
		/** Filtered page of live pages in creation order. */
		list(
			tenantPk: number,
			filter: PageFilter,
			limit: number,
			offset: number,
		): { pages: Page[]; total: number } {
			const where = whereClause(filter);
			const { n: total } = prepared(`SELECT COUNT(*) AS n FROM pages WHERE ${where.sql}`).get(
				tenantPk,
				...where.params,
			) as { n: number };
			const rows = prepared(
				`SELECT * FROM pages WHERE ${where.sql} ORDER BY id LIMIT ? OFFSET ?`,
			).all(tenantPk, ...where.params, limit, offset) as PageRow[];
			return { pages: rows.map(toPage), total };
		},
		/** Returns undefined when a live page already has this url. */
		create(tenantPk: number, page: NewPage): Page | undefined {
			const now = nowIso();
			const row = { ...page, tenant_pk: tenantPk, draft: page.draft ? 1 : 0, now };
			// One statement for a new url (UNIQUE (tenant_pk, url) turns a taken one into no change); a
			// taken url is then either a live page (a conflict) or an archived one, replaced atomically.
			if (insertNew.run(row).changes === 0) {
				const existing = anyByUrl.get(tenantPk, page.url);
				// OR IGNORE also skips a NOT NULL violation; the route's schema rules that out.
				if (!existing) throw new Error('The page was not stored and no page holds its url.');
				if (existing.deleted_at === null) return undefined;
				db.transaction(() => {
					removeRow.run(existing.id);
					insertNew.run(row);
				})();
			}
			// The new row holds exactly these values (the insert's defaults: no templates, no banner).
			return {
				...page,
				draft: page.draft,
				templates: [],
				banner: null,
				created_at: now,
				updated_at: now,
			};
		},
		/**
		 * Default delete of a live page, or permanent erase of a live or soft-deleted one.
		 * Returns false when there is nothing to delete.
		 */
		delete(tenantPk: number, url: string, permanently: boolean): boolean {
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
		/**
		 * banner undefined keeps the current banner. Returns undefined for an unknown or deleted page,
		 * else the page without its templates and the templates as the JSON text stored. The caller
		 * passes the templates as JSON text, and neither the old nor the new templates are read back
		 * and parsed (they may be megabytes).
		 */
		updateContent(
			tenantPk: number,
			url: string,
			templatesJson: string,
			banner: unknown,
			ifUpdatedAt?: string,
		): ContentUpdate | undefined {
			const bannerJson = banner === undefined || banner === null ? null : JSON.stringify(banner);
			// IMMEDIATE: the write lock is taken (waiting up to busy_timeout) before the read, so a checkpoint
			// between the read and the write cannot fail the transaction with SQLITE_BUSY.
			const update = db.transaction(() => {
				const existing = metaByUrl.get(tenantPk, url);
				if (!existing || existing.deleted_at !== null) return undefined;
				// Checked inside the write transaction: no other update can come between check and write.
				if (ifUpdatedAt !== undefined && existing.updated_at !== ifUpdatedAt)
					return { stale: { updated_at: existing.updated_at } };
				const now = laterThan(existing.updated_at);
				const storedBanner = banner === undefined ? existing.banner : bannerJson;
				setContent.run(templatesJson, storedBanner, now, existing.id);
				const { templates: _, ...page } = toPage({
					...existing,
					templates: '[]',
					banner: storedBanner,
					updated_at: now,
				});
				return { page, templatesJson };
			});
			return update.immediate();
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
