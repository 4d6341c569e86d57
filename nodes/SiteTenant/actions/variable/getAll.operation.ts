/** Variable > Get Many: `GET /api/variables`, one item per variable `{key, value}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest, unwrapList } from '../../../shared/transport';

export const description: INodeProperties[] = [];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject[]> {
	const response = await siteRequest.call(
		this,
		{ method: 'GET', path: '/api/variables' },
		{ itemIndex, target },
	);
	return unwrapList(response);
}
