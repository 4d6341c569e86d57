import type Database from 'better-sqlite3';
import { canonicalPageUrl } from '../lib/page-url';

/**
 * Brings page urls written before canonical urls (lib/page-url.ts) to today's rule, losing no page.
 * Every page, live or archived, of every tenant moves to its canonical url. Where several old urls
 * name one canonical url, one page keeps it: a live page before an archived one, then the one whose
 * url already was canonical, then the oldest. Each other one is kept under `<url>--2` (`--3`, … the
 * first no page holds); a page whose old url today's rule refuses (`/a?b`, `/x/../y`, `/x%2541`) is
 * kept under `/renamed-<n>` (n: its row id, the order pages were created in). docs/api-contract.md
 * documents these names; every page that moves is reported, a kept one with the page that took its
 * url.
 */
export interface PageUrlChange {
	tenant: string;
	from: string;
	to: string;
	/** canonical: the same page under its canonical url; duplicate: another page took that url; refused. */
	reason: 'canonical' | 'duplicate' | 'refused';
	/** For a duplicate: the old url of the page that kept the canonical url. */
	kept_by?: string;
}

/** How the log says why a page url moved. */
export const PAGE_URL_CHANGE_WORDS: Record<PageUrlChange['reason'], string> = {
	canonical: 'Page url migrated to its canonical form',
	duplicate:
		'Page url migrated: another page kept its canonical url, this one is kept under a new url',
	refused: "Page url migrated: today's rule refuses the old url, the page is kept under a new url",
};

interface Row {
	id: number;
	tenant_pk: number;
	tenant: string;
	url: string;
	live: number;
}

/** Keeper first: live, then already canonical, then oldest. */
function keeperOrder(target: string) {
	return (a: Row, b: Row) =>
		b.live - a.live || Number(b.url === target) - Number(a.url === target) || a.id - b.id;
}

function firstFree(base: string, taken: Set<string>): string {
	for (let n = 2; ; n++) {
		const candidate = `${base}--${n}`;
		if (!taken.has(candidate)) return candidate;
	}
}

/** The new url of every page of one tenant whose url changes. */
function planTenant(rows: Row[]): Array<{ row: Row; change: PageUrlChange }> {
	const groups = new Map<string, Row[]>();
	const refused: Row[] = [];
	for (const row of rows) {
		const checked = canonicalPageUrl(row.url);
		if ('problem' in checked) refused.push(row);
		else groups.set(checked.url, [...(groups.get(checked.url) ?? []), row]);
	}
	const taken = new Set(groups.keys());
	const plan: Array<{ row: Row; change: PageUrlChange }> = [];
	const move = (row: Row, to: string, reason: PageUrlChange['reason'], keptBy?: string) => {
		taken.add(to);
		if (to !== row.url) {
			const change: PageUrlChange = { tenant: row.tenant, from: row.url, to, reason };
			if (keptBy !== undefined) change.kept_by = keptBy;
			plan.push({ row, change });
		}
	};
	const renamed = (row: Row) => {
		const base = `/renamed-${row.id}`;
		return taken.has(base) ? firstFree(base, taken) : base;
	};
	for (const [target, group] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
		const [keeper, ...others] = group.sort(keeperOrder(target));
		move(keeper, target, 'canonical');
		for (const other of others) {
			const name = firstFree(target, taken);
			// Past the length limit `<url>--n` would name no page: such a one is renamed instead.
			const valid = !('problem' in canonicalPageUrl(name));
			move(other, valid ? name : renamed(other), 'duplicate', keeper.url);
		}
	}
	for (const row of refused) move(row, renamed(row), 'refused');
	return plan;
}

/** Runs inside the migration's transaction; returns what moved. */
export function migratePageUrls(db: Database.Database): PageUrlChange[] {
	const rows = db
		.prepare<[], Row>(
			`SELECT pages.id, pages.tenant_pk, tenants.id AS tenant, pages.url,
			        (pages.deleted_at IS NULL) AS live
			 FROM pages JOIN tenants ON tenants.pk = pages.tenant_pk ORDER BY pages.tenant_pk, pages.id`,
		)
		.all();
	const byTenant = new Map<number, Row[]>();
	for (const row of rows)
		byTenant.set(row.tenant_pk, [...(byTenant.get(row.tenant_pk) ?? []), row]);
	const plan = [...byTenant.values()].flatMap(planTenant);
	// Two passes: a url freed by one page may be the one another moves to (UNIQUE (tenant_pk, url)).
	// No old url holds NUL (the schema refused control characters), so the interim names are free.
	const setUrl = db.prepare('UPDATE pages SET url = ? WHERE id = ?');
	for (const { row } of plan) setUrl.run(`\u0000${row.id}`, row.id);
	for (const { row, change } of plan) setUrl.run(change.to, row.id);
	return plan.map(({ change }) => change);
}
