/**
 * Where the site stands now: every published page from the sitemap (one request), plus, when drafts
 * are watched too, the draft pages from the page listing. An answer of the wrong shape fails the poll
 * rather than reading as "every page is gone".
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import type { SiteRequestOptions } from '../shared/transport';
import { siteRequest, siteRequestPages } from '../shared/transport';

export interface WatchedPage {
	url: string;
	name: string;
	locale: string;
	updated_at: string;
	draft: boolean;
}

export interface Snapshot {
	pages: WatchedPage[];
	/** When the service made the sitemap (its clock); the time a removal was seen. */
	generatedAt: string;
	/** The tenant the sitemap says it is of, where the service says (a reference-server extension). */
	tenantId?: string;
}

/** Where every request of a poll goes (resolved once per poll), its deadline and answer size cap. */
export type PollLimits = Pick<SiteRequestOptions, 'target' | 'signal' | 'maxResponseBytes'>;

/** Longest name kept: a longer one is cut to this many characters (the state and items stay small). */
export const MAX_NAME_LENGTH = 1000;

function contractError(ctx: IPollFunctions, message: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, {
		description:
			'The service answered outside its contract; the trigger keeps its place and tries again at the next poll.',
	});
}

function watchedPage(
	ctx: IPollFunctions,
	value: unknown,
	draft: boolean,
	source: string,
): WatchedPage {
	const page = isPlainObject(value) ? value : {};
	if (typeof page.url !== 'string' || typeof page.updated_at !== 'string') {
		throw new NodeOperationError(
			ctx.getNode(),
			`The ${source} holds a page without url or updated_at`,
			{
				description:
					'The service answered in an unexpected shape; the trigger keeps its place and tries again at the next poll.',
			},
		);
	}
	if (!Number.isFinite(Date.parse(page.updated_at))) {
		throw contractError(
			ctx,
			`The ${source} gives page ${JSON.stringify(page.url)} an updated_at that is not a time: ${JSON.stringify(page.updated_at.slice(0, 100))}`,
		);
	}
	return {
		url: page.url,
		name: String(page.name ?? '').slice(0, MAX_NAME_LENGTH),
		locale: String(page.locale ?? ''),
		updated_at: page.updated_at,
		draft,
	};
}

async function readSitemap(this: IPollFunctions, limits: PollLimits): Promise<Snapshot> {
	const answer = await siteRequest.call(
		this,
		{ method: 'POST', path: '/api/sitemap', body: {} },
		{ itemIndex: 0, ...limits },
	);
	if (!isPlainObject(answer) || !Array.isArray(answer.pages)) {
		throw new NodeOperationError(this.getNode(), 'The sitemap answer has no list of pages', {
			description: 'The trigger keeps its place and tries again at the next poll.',
		});
	}
	const generatedAt =
		typeof answer.generated_at === 'string' && Number.isFinite(Date.parse(answer.generated_at))
			? answer.generated_at
			: new Date().toISOString();
	const pages = answer.pages.map((page: unknown) => watchedPage(this, page, false, 'sitemap'));
	// A url listed twice would read as two pages: published twice, and later removed once too often.
	const seen = new Set<string>();
	for (const page of pages) {
		if (seen.has(page.url))
			throw contractError(this, `The sitemap lists the url ${JSON.stringify(page.url)} twice`);
		seen.add(page.url);
	}
	return {
		pages,
		generatedAt,
		...(typeof answer.tenant_id === 'string' ? { tenantId: answer.tenant_id } : {}),
	};
}

/** Every page of the listing with these filters. */
export async function listAllPages(
	this: IPollFunctions,
	qs: IDataObject,
	limits: PollLimits,
): Promise<IDataObject[]> {
	return await siteRequestPages.call(
		this,
		'/api/pages',
		qs,
		{ returnAll: true },
		{ itemIndex: 0, ...limits },
	);
}

export async function readSnapshot(
	this: IPollFunctions,
	includeDrafts: boolean,
	limits: PollLimits,
): Promise<Snapshot> {
	const snapshot = await readSitemap.call(this, limits);
	if (includeDrafts) {
		const drafts = await listAllPages.call(this, { draft: true }, limits);
		snapshot.pages.push(...drafts.map((page) => watchedPage(this, page, true, 'page listing')));
	}
	return snapshot;
}
