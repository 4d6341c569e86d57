import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as update from './update.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['settings'] } },
		options: [
			{
				name: 'Update',
				value: 'update',
				description:
					'Change site settings: analytics code, noindex, statistics iframe, contact-form webhook URL and headers. Settings not given keep their value.',
				action: 'Update site settings',
			},
		],
		default: 'update',
	},
	...update.description,
];

export const handlers: OperationHandlers = {
	update: update.execute,
};
