/** Types of crafted-site.js (plain CommonJS, loaded by the engine tests and the real-n8n tests). */

export interface CraftedPage {
	url: string;
	name?: string;
	locale?: string;
	updated_at: string;
	/** Listed by GET /api/pages (the trigger reads it only when the digest cannot tell). */
	created_at?: string;
}

/** One answer to POST /api/sitemap. */
export interface SitemapAnswer {
	/** When the request came in (ms since the epoch). */
	startedAt: number;
	/** When the connection of the answer closed, by either side; undefined while it is open. */
	endedAt: number | undefined;
	/** Whether the answer was sent to its end (false: the client hung up first). */
	whole: boolean;
}

export interface CraftedSite {
	/** `http://127.0.0.1:<port>`. */
	url: string;
	/** What POST /api/sitemap answers (with `tenant_id: "crafted"`); GET /api/pages lists its pages. */
	sitemap: { generated_at: string; pages: CraftedPage[] };
	/** Milliseconds between two bytes of the sitemap; 0 sends it at once. */
	dripMs: number;
	/** Sends a sitemap that never ends (pages after pages) until the client hangs up. */
	endless: boolean;
	/** Resolves when the client hung up on the latest endless sitemap. */
	endlessClosed: Promise<void> | undefined;
	/** Every answer to POST /api/sitemap so far, oldest first. */
	answers: SitemapAnswer[];
	/** Stops the site, ending every open connection. */
	close(): Promise<void>;
}

export function startCraftedSite(): Promise<CraftedSite>;
