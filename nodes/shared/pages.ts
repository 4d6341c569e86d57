/**
 * The one way the nodes read a page by its url (`GET /api/pages?url=…`), for Page > Get and Delete,
 * the AI operations and the Page Trigger's Include Content. The answer may be `{data: [page], meta}`,
 * a bare array or a single page. The Tenant node takes an exact url match, else one that differs only
 * by a trailing slash (a deployment that treats the filter loosely). No page: the item fails
 * (readPageByUrl) or undefined (findPageByUrl).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from './json';
import type { SiteItem, SiteRequestContext, SiteRequestOptions } from './transport';
import { siteRequest, unwrapList } from './transport';
import { withoutTrailingSlashes } from './url';

const withoutTrailingSlash = (value: string) =>
	value.length > 1 ? withoutTrailingSlashes(value) : value;

/** The pages the service answers for `?url=`: the one named, maybe others the filter let through. */
export async function pagesAtUrl(
	ctx: SiteRequestContext,
	url: string,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const response = await siteRequest.call(
		ctx,
		{ method: 'GET', path: '/api/pages', qs: { url, page: 1, per_page: 100 } },
		options,
	);
	return isPlainObject(response) && 'url' in response ? [response] : unwrapList(response);
}

export async function findPageByUrl(
	this: IExecuteFunctions,
	url: string,
	item: SiteItem,
): Promise<IDataObject | undefined> {
	const pages = await pagesAtUrl(this, url, item);
	return (
		pages.find((candidate) => candidate?.url === url) ??
		pages.find(
			(candidate) =>
				typeof candidate?.url === 'string' &&
				withoutTrailingSlash(candidate.url) === withoutTrailingSlash(url),
		)
	);
}

export async function readPageByUrl(
	this: IExecuteFunctions,
	url: string,
	item: SiteItem,
): Promise<IDataObject> {
	const page = await findPageByUrl.call(this, url, item);
	if (!page) {
		throw new NodeOperationError(this.getNode(), `No page with url "${url}"`, {
			itemIndex: item.itemIndex,
			description:
				'The tenant has no live page with this url (deleted pages are not listed). Urls are site paths such as "/about-us", as listed by Page > Get Many.',
		});
	}
	return page;
}
