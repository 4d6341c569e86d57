/** Page > Get: one page by its url (`GET /api/pages?url=...`); no such page fails the item. Outputs the page. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { pageParameter, readPageUrl } from './locator';
import { readPageByUrl } from '../../../shared/pages';

const properties: INodeProperties[] = [
	pageParameter({
		description: 'The page to read: pick it from the list (search by name or URL) or give its URL',
	}),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const url = readPageUrl(this, itemIndex);
	return await readPageByUrl.call(this, url, { itemIndex, target });
}
