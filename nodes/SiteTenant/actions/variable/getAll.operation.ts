/** Variable > Get Many: `GET /api/variables`, one item per variable `{key, value}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { unwrapList } from '../../../shared/transport';

export const description: INodeProperties[] = [];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const response = await tenantApiRequest.call(
		this,
		{ method: 'GET', path: '/api/variables' },
		{ itemIndex },
	);
	return unwrapList(response);
}
