/**
 * Page > Delete: `DELETE /api/page` with `{url, permanently?}`. The service asks callers to archive
 * a page before deleting it, so the page is read first and the output carries it as it was. No read,
 * no delete: if the page cannot be read, nothing is deleted and the item fails. Outputs the page with
 * `deleted` and `permanently`.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { pageParameter, readPageUrl } from './locator';
import { dryRunItem, dryRunProperty } from '../../helpers/dryRun';
import { readPageByUrl } from '../../../shared/pages';
import {
	assertUnchanged,
	onlyIfUnchanged,
	onlyIfUnchangedProperties,
} from '../../helpers/onlyIfUnchanged';

const properties: INodeProperties[] = [
	pageParameter({
		description:
			'The page to delete: pick it from the list (search by name or URL) or give its URL',
	}),
	{
		displayName: 'Permanently',
		name: 'permanently',
		type: 'boolean',
		default: false,
		description:
			'Whether to erase the page for good. Off: the page leaves listings and the sitemap but the service keeps its data. Either way the output carries the page as it was.',
	},
	dryRunProperty('the page'),
	...onlyIfUnchangedProperties('page has'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const url = readPageUrl(this, itemIndex);
	const permanently = this.getNodeParameter('permanently', itemIndex, false) as boolean;

	const page = await readPageByUrl.call(this, url, { itemIndex, target });

	if (target.dryRun)
		return dryRunItem(this, itemIndex, { result: 'would delete', permanently, current: page });
	// The page's version: an edit since the preview gave it a newer one.
	if (onlyIfUnchanged(this, itemIndex))
		assertUnchanged(this, itemIndex, page, ['updated_at'], `page "${url}"`);

	// The page read is the page deleted: named by the url the service lists it under.
	const body: IDataObject = { url: page.url ?? url };
	if (permanently) body.permanently = 1;
	await siteRequest.call(
		this,
		{ method: 'DELETE', path: '/api/page', body },
		{ itemIndex, target },
	);
	// The page as it was, plus what happened to it.
	return { ...page, deleted: true, permanently };
}
