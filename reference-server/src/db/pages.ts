import type { SqliteDatabase } from './open';
import { nowIso } from '../clock';

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

/** As stored: flags as 0/1, JSON as text, and what the API does not show. */
type PageRow = Omit<Page, 'draft' | 'templates' | 'banner'> & {
	id: number;
	tenant_pk: number;
	draft: number;
	templates: string;
	banner: string | null;
	deleted_at: string | null;
};

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
export type ContentUpdate = { page: Page; stale?: undefined } | { stale: { updated_at: string } };

/**
 * Now, or a millisecond past the version before when the clock has not moved on since: each content
 * update gives the page a new updated_at, so the version a caller read tells every later write apart.
 */
function laterThan(previous: string): string {
	const now = nowIso();
	if (now > previous) return now;
	return new Date(Date.parse(previous) + 1).toISOString();
}

/** The conditions of a page listing, as SQL and its parameters. */
function whereClause(tenantPk: number, filter: PageFilter): { sql: string; params: unknown[] } {
	const parts = ['tenant_pk = ?', 'deleted_at IS NULL'];
	const params: unknown[] = [tenantPk];
	const add = (sql: string, ...values: unknown[]) => {
		parts.push(sql);
		params.push(...values);
	};
	if (filter.url !== undefined) add('url = ?', filter.url);
	if (filter.locale !== undefined) add('locale = ?', filter.locale);
	if (filter.draft !== undefined) add('draft = ?', filter.draft ? 1 : 0);
	if (filter.search) {
		// instr, not LIKE: a fragment's % and _ are plain characters.
		const fragment = filter.search.toLowerCase();
		add('(instr(lower(name), ?) > 0 OR instr(lower(url), ?) > 0)', fragment, fragment);
	}
	return { sql: parts.join(' AND '), params };
}

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
	const insert = db.prepare(
		`INSERT INTO pages (tenant_pk, url, name, locale, meta_title, meta_description, draft, templates, banner, created_at, updated_at)
		 VALUES (@tenant_pk, @url, @name, @locale, @meta_title, @meta_description, @draft, '[]', NULL, @now, @now)`,
	);
	const softDelete = db.prepare('UPDATE pages SET deleted_at = ? WHERE id = ?');
	const setContent = db.prepare(
		'UPDATE pages SET templates = ?, banner = ?, updated_at = ? WHERE id = ?',
	);
	// Every locale when none (null) is given.
	const sitemap = db.prepare<{ tenantPk: number; locale: string | null }, SitemapEntry>(
		`SELECT url, name, locale, updated_at FROM pages
		  WHERE tenant_pk = @tenantPk AND deleted_at IS NULL AND draft = 0
		    AND (@locale IS NULL OR locale = @locale)
		  ORDER BY url`,
	);
	/** A page row without its templates (which may be megabytes, and are replaced anyway). */
	const metaByUrl = db.prepare<[number, string], Omit<PageRow, 'templates'>>(
		'SELECT id, tenant_pk, url, name, locale, meta_title, meta_description, draft, banner, created_at, updated_at, deleted_at FROM pages WHERE tenant_pk = ? AND url = ?',
	);

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
			const where = whereClause(tenantPk, filter);
			const total = db
				.prepare(`SELECT COUNT(*) FROM pages WHERE ${where.sql}`)
				.pluck()
				.get(...where.params) as number;
			const rows = db
				.prepare(`SELECT * FROM pages WHERE ${where.sql} ORDER BY id LIMIT ? OFFSET ?`)
				.all(...where.params, limit, offset) as PageRow[];
			return { pages: rows.map(toPage), total };
		},
		/** Returns undefined when a live page already has this url. */
		create(tenantPk: number, page: NewPage): Page | undefined {
			const now = nowIso();
			return db.transaction(() => {
				const existing = anyByUrl.get(tenantPk, page.url);
				if (existing?.deleted_at === null) return undefined;
				if (existing) removeRow.run(existing.id);
				insert.run({ ...page, tenant_pk: tenantPk, draft: page.draft ? 1 : 0, now });
				// The new row holds exactly these values (the insert's defaults: no templates, no banner).
				return { ...page, templates: [], banner: null, created_at: now, updated_at: now };
			})();
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
		/** banner undefined keeps the current banner. Returns undefined for an unknown or deleted page. */
		updateContent(
			tenantPk: number,
			url: string,
			templates: Record<string, unknown>[],
			banner: Record<string, unknown> | null | undefined,
			ifUpdatedAt?: string,
		): ContentUpdate | undefined {
			// IMMEDIATE: the write lock is taken (waiting up to busy_timeout) before the read, so a checkpoint
			// between the read and the write cannot fail the transaction with SQLITE_BUSY.
			const update = db.transaction(() => {
				const existing = metaByUrl.get(tenantPk, url);
				if (!existing || existing.deleted_at !== null) return undefined;
				// Checked inside the write transaction: no other update can come between check and write.
				if (ifUpdatedAt !== undefined && existing.updated_at !== ifUpdatedAt)
					return { stale: { updated_at: existing.updated_at } };
				const now = laterThan(existing.updated_at);
				const storedBanner =
					banner === undefined ? existing.banner : banner === null ? null : JSON.stringify(banner);
				setContent.run(JSON.stringify(templates), storedBanner, now, existing.id);
				const page = toPage({
					...existing,
					templates: '[]',
					banner: storedBanner,
					updated_at: now,
				});
				return { page: { ...page, templates } };
			});
			return update.immediate();
		},
		/** Published pages (not draft, not deleted) ordered by url. */
		sitemap: (tenantPk: number, locale?: string): SitemapEntry[] =>
			sitemap.all({ tenantPk, locale: locale ?? null }),
	};
}
