/**
 * What changed between the stored state and the site as it stands now.
 *
 * - Published and removed pages come from the digest: the last poll's digest minus this poll's leaves
 *   exactly the pages in one set and not the other (digest.ts).
 * - Updated pages are those still there whose updated_at moved (state.ts: the watermark and its
 *   look-back window).
 * - When more pages were published and removed than the digest can name, the page listing tells the
 *   new ones apart by their created_at (one walk of the listing); the digest then has only the
 *   removals and the pages back again (restored, or a draft published in place) left to name. When
 *   even those are too many, the removals beyond come out as one item with their number, and a page
 *   back again is reported only if its updated_at moved (as updated): docs/page-trigger.md.
 */
import { PageDigest, type PageKey } from './digest';
import type { Snapshot, WatchedPage } from './snapshot';
import { changeTest, type TriggerState } from './state';

export type PageEvent = 'pagePublished' | 'pageUpdated' | 'pageRemoved';

export interface PageChange {
	event: PageEvent;
	url: string | null;
	name: string | null;
	locale: string | null;
	updated_at: string;
	draft?: boolean;
	/** Removals that could not be named (only on the one item that says so). */
	unnamed_removals?: number;
}

/** created_at of the watched pages by url: only asked for when the digest alone cannot tell. */
type CreatedAtLookup = () => Promise<Map<string, string>>;

function changeOf(event: PageEvent, page: WatchedPage): PageChange {
	return {
		event,
		url: page.url,
		name: page.name,
		locale: page.locale,
		updated_at: page.updated_at,
		...(page.draft ? { draft: true } : {}),
	};
}

function removalOf(key: PageKey, seenAt: string): PageChange {
	return {
		event: 'pageRemoved',
		url: key.url,
		name: key.name,
		locale: key.locale,
		updated_at: seenAt,
	};
}

interface SetDifference {
	/** The digest of this poll's pages (the next state's). */
	digest: PageDigest;
	published: Set<string>;
	removed: PageKey[];
	unnamedRemovals: number;
}

async function setDifference(
	state: TriggerState,
	pages: WatchedPage[],
	createdAt: CreatedAtLookup,
): Promise<SetDifference> {
	const before = PageDigest.fromStored(state.digest);
	const now = PageDigest.of(pages, state.digest.cells);
	const first = before.subtract(now).decode();
	if (first.complete) {
		// A url on both sides changed name or locale: it was published before, so it is no new page.
		const before = new Set(first.onlyInFirst.map((key) => key.url));
		return {
			digest: now,
			published: new Set(
				first.onlyInSecond.map((key) => key.url).filter((url) => !before.has(url)),
			),
			removed: first.onlyInFirst,
			unnamedRemovals: 0,
		};
	}

	// Too many differences for the cells: name the new pages from their created_at, take them out,
	// and leave only the removals (and urls deleted and created again) for the digest to name.
	const created = await createdAt();
	const test = changeTest(state);
	const fresh = pages.filter((page) => {
		const time = created.get(page.url);
		return time !== undefined && test.created(page.url, time);
	});
	const rest = before.subtract(now);
	for (const page of fresh) rest.add(page);
	const second = rest.decode();
	const current = new Set(pages.map((page) => page.url));
	const recreated = new Set(
		second.onlyInFirst.filter((key) => current.has(key.url)).map((key) => key.url),
	);
	const removed = second.onlyInFirst.filter((key) => !current.has(key.url));
	// In the site now, not before, and not new: a page restored, or a draft published in place. (A url
	// on both sides changed name or locale.)
	const returned = second.onlyInSecond.map((key) => key.url).filter((url) => !recreated.has(url));
	const published = new Set([
		...fresh.map((page) => page.url).filter((url) => !recreated.has(url)),
		...returned,
	]);
	// Pages before = pages now - published + removed.
	const unnamedRemovals = second.complete
		? 0
		: Math.max(0, state.pages - pages.length + published.size - removed.length);
	return { digest: now, published, removed, unnamedRemovals };
}

/**
 * Every change since the state, oldest first, removals last (they carry the time they were seen),
 * and the digest of the pages now (for the next state).
 */
export async function detectChanges(
	state: TriggerState,
	snapshot: Snapshot,
	createdAt: CreatedAtLookup,
): Promise<{ changes: PageChange[]; digest: PageDigest }> {
	const { pages, generatedAt } = snapshot;
	const difference = await setDifference(state, pages, createdAt);
	const byUrl = new Map(pages.map((page) => [page.url, page]));
	// A url in both lists kept its place but changed name or locale: an update, not a removal.
	const removed = difference.removed.filter((key) => !byUrl.has(key.url));

	const changes: PageChange[] = [];
	const test = changeTest(state);
	for (const page of pages) {
		if (difference.published.has(page.url)) changes.push(changeOf('pagePublished', page));
		else if (test.changed(page)) changes.push(changeOf('pageUpdated', page));
	}
	changes.sort(
		(a, b) =>
			Date.parse(a.updated_at) - Date.parse(b.updated_at) ||
			String(a.url).localeCompare(String(b.url)),
	);
	changes.push(...removed.map((key) => removalOf(key, generatedAt)));
	if (difference.unnamedRemovals > 0) {
		changes.push({
			event: 'pageRemoved',
			url: null,
			name: null,
			locale: null,
			updated_at: generatedAt,
			unnamed_removals: difference.unnamedRemovals,
		});
	}
	return { changes, digest: difference.digest };
}
