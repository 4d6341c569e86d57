import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as call from './call.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customApiCall'] } },
		options: [
			{
				name: 'Call',
				value: 'call',
				description:
					"Call any endpoint under /api/ of the site with the node's credential: the chatbot, or any endpoint without an operation here",
				action: 'Make a custom API call',
			},
		],
		default: 'call',
	},
	...call.description,
];

export const handlers: OperationHandlers = {
	call: call.execute,
};
