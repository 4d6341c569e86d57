import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as update from './update.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['content'] } },
		options: [
			{
				name: 'Update',
				value: 'update',
				description:
					"Replace a page's content: its templates (content blocks, a JSON array) and optionally its banner (a JSON object)",
				action: 'Update page content',
			},
		],
		default: 'update',
	},
	...update.description,
];

export const handlers: OperationHandlers = {
	update: update.execute,
};
