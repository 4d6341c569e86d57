import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as send from './send.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['notification'] } },
		options: [
			{
				name: 'Send',
				value: 'send',
				description:
					'Show a status notification (info, success, warning or error) in the site editor',
				action: 'Send a notification',
			},
		],
		default: 'send',
	},
	...send.description,
];

export const handlers: OperationHandlers = {
	send: send.execute,
};
