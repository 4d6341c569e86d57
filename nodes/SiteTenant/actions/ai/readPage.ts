/**
 * Reads one page by its url: `GET /api/pages?url=…`. The answer may be `{data: [page], meta}`, a bare
 * array or a single page; only a page whose url equals the one asked for counts (a server that
 * ignores the filter and lists every page is handled too). No page: the item fails.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { tenantApiRequest } from '../../../shared/tenantRequest';
import { unwrapList } from '../../../shared/transport';

function sameUrl(a: unknown, b: string): boolean {
	if (typeof a !== 'string') return false;
	const strip = (value: string) => (value.length > 1 ? value.replace(/\/+$/, '') : value);
	return a === b || strip(a) === strip(b);
}

export async function readPage(
	this: IExecuteFunctions,
	url: string,
	itemIndex: number,
): Promise<IDataObject> {
	const response = await tenantApiRequest.call(
		this,
		{ method: 'GET', path: '/api/pages', qs: { url } },
		{ itemIndex },
	);
	const isSinglePage =
		response !== null && typeof response === 'object' && !Array.isArray(response) && 'url' in response;
	const pages = isSinglePage ? [response as IDataObject] : unwrapList(response);
	const page = pages.find((candidate) => sameUrl(candidate?.url, url));
	if (!page) {
		throw new NodeOperationError(this.getNode(), `No page found with url "${url}"`, {
			itemIndex,
			description: 'Check the page URL: it is the page path, e.g. /about-us, as listed by Page > Get Many',
		});
	}
	return page;
}
