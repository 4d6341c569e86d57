/**
 * The one way the node reads a page by its url (`GET /api/pages?url=…`), for Page > Get and Delete
 * and the AI operations. The answer may be `{data: [page], meta}`, a bare array or a single page;
 * an exact url match wins, else one that differs only by a trailing slash (a deployment that treats
 * the filter loosely). No page: the item fails (readPageByUrl) or undefined (findPageByUrl).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../../shared/json';
import { tenantApiRequest } from '../transport';
import { unwrapList } from '../../shared/transport';

const withoutTrailingSlash = (value: string) =>
	value.length > 1 ? value.replace(/\/+$/, '') : value;

function pagesOf(response: unknown): IDataObject[] {
	return isPlainObject(response) && 'url' in response ? [response] : unwrapList(response);
}

export async function findPageByUrl(
	this: IExecuteFunctions,
	url: string,
	itemIndex: number,
): Promise<IDataObject | undefined> {
	const response = await tenantApiRequest.call(
		this,
		{ method: 'GET', path: '/api/pages', qs: { url, page: 1, per_page: 100 } },
		{ itemIndex },
	);
	const pages = pagesOf(response);
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
	itemIndex: number,
): Promise<IDataObject> {
	const page = await findPageByUrl.call(this, url, itemIndex);
	if (!page) {
		throw new NodeOperationError(this.getNode(), `No page with url "${url}"`, {
			itemIndex,
			description:
				'The tenant has no live page with this url (deleted pages are not listed). Urls are site paths such as "/about-us", as listed by Page > Get Many.',
		});
	}
	return page;
}
