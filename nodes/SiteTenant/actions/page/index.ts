import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['page'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description:
					'Create a page with a name, URL and locale (content is set with Content > Update)',
				action: 'Create a page',
			},
			{
				name: 'Delete',
				value: 'delete',
				description:
					'Delete a page by URL (default: archived on the service; or permanently). Outputs the page as it was before the delete.',
				action: 'Delete a page',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one page by its URL, with its content (templates and banner)',
				action: 'Get a page',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List pages, optionally filtered by locale, draft state or URL',
				action: 'Get many pages',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...get.description,
	...create.description,
	...del.description,
];

export const handlers: OperationHandlers = {
	getAll: getAll.execute,
	get: get.execute,
	create: create.execute,
	delete: del.execute,
};
