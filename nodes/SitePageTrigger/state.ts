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
 * The look-back window: pages stamped this long before the watermark (or later) are remembered by
 * url and updated_at, so a write committed late with an older stamp is still seen once.
 */
const LOOK_BACK_MS = 10 * 60_000;
/** Pages remembered in the window at most; with more, the window is narrowed to the newest. */
const MAX_RECENT = 200;

export interface TriggerState {
	version: number;
	/** Whether drafts were watched: another choice starts afresh. */
	drafts: boolean;
	/** The site watched (site.ts): another site starts afresh. */
	site: string;
	/**
	 * The latest updated_at seen (ms since the epoch), but never past the sitemap's generated_at; null
	 * for an empty site.
	 */
	watermark: number | null;
	/** Pages stamped at or before this (ms) are unchanged; null for an empty site. */
	since: number | null;
	/** `urlHash(url)@updated_at` (base 36) of every page stamped after `since`. */
	recent: string[];
	/** How many pages were watched. */
	pages: number;
	digest: StoredDigest;
}

/** A short hash of a url, for the pages of the look-back window. */
function urlHash(url: string): string {
	return createHash('sha256').update(url).digest('base64').slice(0, 12);
}

export function timeOf(value: string): number {
	const time = Date.parse(value);
	return Number.isFinite(time) ? time : 0;
}

/** What `recent` remembers of a page: its url (hashed) and its updated_at. */
function stampOf(url: string, time: number): string {
	return `${urlHash(url)}@${time.toString(36)}`;
}

/**
 * The state of these pages; `digest` when it was already made of them (with DIGEST_CELLS cells).
 * `generatedAt` (the sitemap's) caps the watermark: a page stamped ahead of the service's clock does
 * not hold it in the future.
 */
export function stateOf(
	pages: WatchedPage[],
	drafts: boolean,
	site: string,
	digest?: PageDigest,
	generatedAt?: string,
): TriggerState {
	let watermark: number | null = null;
	for (const page of pages) watermark = Math.max(watermark ?? 0, timeOf(page.updated_at));
	const cap = generatedAt === undefined ? NaN : Date.parse(generatedAt);
	if (watermark !== null && Number.isFinite(cap)) watermark = Math.min(watermark, cap);
	let since = watermark === null ? null : watermark - LOOK_BACK_MS;
	let window = pages
		.filter((page) => since !== null && timeOf(page.updated_at) > since)
		.sort((a, b) => timeOf(b.updated_at) - timeOf(a.updated_at));
	if (window.length > MAX_RECENT) {
		const cut = timeOf(window[MAX_RECENT].updated_at);
		since = cut;
		window = window.filter((page) => timeOf(page.updated_at) > cut);
	}
	return {
		version: STATE_VERSION,
		drafts,
		site,
		watermark,
		since,
		recent: window.map((page) => stampOf(page.url, timeOf(page.updated_at))),
		pages: pages.length,
		digest: (digest?.cells === DIGEST_CELLS
			? digest
			: PageDigest.of(pages, DIGEST_CELLS)
		).toStored(),
	};
}

/**
 * The stored state, or undefined when there is none (first activation) or it is not of this shape:
 * the trigger then starts afresh, as on a first activation.
 */
export function readState(staticData: IDataObject): TriggerState | undefined {
	const state = staticData.state as TriggerState | undefined;
	return state?.version === STATE_VERSION && Array.isArray(state.recent) ? state : undefined;
}

export function writeState(staticData: IDataObject, state: TriggerState): void {
	staticData.state = state as unknown as IDataObject;
}

/** Whether a page changed after the state was taken, and whether a page was created after it. */
interface ChangeTest {
	/** updated_at past the window, or in it and not the updated_at the state remembers for the url. */
	changed(page: WatchedPage): boolean;
	/** A page first seen with this created_at was not there when the state was taken. */
	created(url: string, createdAt: string): boolean;
}

export function changeTest(state: TriggerState): ChangeTest {
	const { since } = state;
	const recent = new Set(state.recent);
	const recentUrls = new Set(state.recent.map((stamp) => stamp.slice(0, stamp.indexOf('@'))));
	return {
		changed(page) {
			if (since === null) return true;
			const time = timeOf(page.updated_at);
			return time > since && !recent.has(stampOf(page.url, time));
		},
		created(url, createdAt) {
			if (since === null) return true;
			return timeOf(createdAt) > since && !recentUrls.has(urlHash(url));
		},
	};
}
