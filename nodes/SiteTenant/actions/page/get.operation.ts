/** Page > Get: one page by its url (`GET /api/pages?url=...`); no such page fails the item. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requireString } from '../../../shared/validation';
import { pageUrlField } from './fields';
import { getPageByUrl } from './findPage';

const properties: INodeProperties[] = [{ ...pageUrlField, description: 'Url of the page to read, e.g. "/about-us"' }];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const url = requireString(this, 'url', itemIndex, 'Page URL');
	return await getPageByUrl.call(this, url, itemIndex);
}
