/**
 * Reads one page by its url (`GET /api/pages?url=...`). The list is read tolerantly (bare or in
 * `data`) and only an exact url match counts, in case a deployment treats the filter as a prefix.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { tenantApiRequest } from '../../../shared/tenantRequest';
import { unwrapList } from '../../../shared/transport';

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
	return unwrapList(response).find((page) => page.url === url);
}

/** Like findPageByUrl, but a missing page fails the item. */
export async function getPageByUrl(
	this: IExecuteFunctions,
	url: string,
	itemIndex: number,
): Promise<IDataObject> {
	const page = await findPageByUrl.call(this, url, itemIndex);
	if (!page) {
		throw new NodeOperationError(this.getNode(), `No page with url "${url}"`, {
			itemIndex,
			description:
				'The tenant has no live page with this url (deleted pages are not listed). Urls are site paths such as "/about-us".',
		});
	}
	return page;
}
