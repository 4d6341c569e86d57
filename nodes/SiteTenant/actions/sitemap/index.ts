import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as get from './get.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['sitemap'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description:
					'Get the sitemap: the published pages (URL, name, locale, updated_at), optionally of one locale',
				action: 'Get the sitemap',
			},
		],
		default: 'get',
	},
	...get.description,
];

export const handlers: OperationHandlers = {
	get: get.execute,
};
