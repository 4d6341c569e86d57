/**
 * What the trigger keeps between polls, in the workflow's static data: a few numbers and the digest
 * of the watched set, never a list of pages. Its size does not grow with the site (docs/page-trigger.md).
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { PageDigest, type StoredDigest } from './digest';
import type { WatchedPage } from './snapshot';

const STATE_VERSION = 1;
/**
 * Cells of the digest: up to about 80% of this many pages published and removed between two polls
 * are named exactly; more is handled by changes.ts's fallback.
 */
export const DIGEST_CELLS = 3 * 160;
/**
 * Ties kept at most. Only a bulk write stamps more pages with one millisecond; then none are kept and a
 * page written again within that same millisecond after the poll would go unseen.
 */
const MAX_TIES = 1000;

export interface TriggerState {
	version: number;
	/** Whether drafts were watched: another choice starts afresh. */
	drafts: boolean;
	/** The site watched (site.ts): another site starts afresh. */
	site: string;
	/** The latest updated_at seen (ms since the epoch), or null for an empty site. */
	watermark: number | null;
	/** Short hashes of the urls whose updated_at was exactly the watermark. */
	ties: string[];
	/** How many pages were watched. */
	pages: number;
	digest: StoredDigest;
}

/** A short hash of a url, for the ties at the watermark. */
export function urlHash(url: string): string {
	return createHash('sha256').update(url).digest('base64').slice(0, 12);
}

export function timeOf(value: string): number {
	const time = Date.parse(value);
	return Number.isFinite(time) ? time : 0;
}

/** The state of these pages; `digest` when it was already made of them (with DIGEST_CELLS cells). */
export function stateOf(
	pages: WatchedPage[],
	drafts: boolean,
	site: string,
	digest?: PageDigest,
): TriggerState {
	let watermark: number | null = null;
	for (const page of pages) watermark = Math.max(watermark ?? 0, timeOf(page.updated_at));
	const ties = pages
		.filter((page) => watermark !== null && timeOf(page.updated_at) === watermark)
		.map((page) => urlHash(page.url));
	return {
		version: STATE_VERSION,
		drafts,
		site,
		watermark,
		ties: ties.length <= MAX_TIES ? ties : [],
		pages: pages.length,
		digest: (digest?.cells === DIGEST_CELLS
			? digest
			: PageDigest.of(pages, DIGEST_CELLS)
		).toStored(),
	};
}

/** The stored state, or undefined when there is none (first activation) or it is of another version. */
export function readState(staticData: IDataObject): TriggerState | undefined {
	const state = staticData.state as TriggerState | undefined;
	return state?.version === STATE_VERSION ? state : undefined;
}

export function writeState(staticData: IDataObject, state: TriggerState): void {
	staticData.state = state as unknown as IDataObject;
}

/** A page changed after the state was taken: updated_at past the watermark, or at it and not a tie. */
export function changedSince(state: TriggerState, page: WatchedPage): boolean {
	if (state.watermark === null) return true;
	const time = timeOf(page.updated_at);
	if (time !== state.watermark) return time > state.watermark;
	return state.ties.length > 0 && !state.ties.includes(urlHash(page.url));
}
