import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as issue from './issue.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['token'] } },
		options: [
			{
				name: 'Issue',
				value: 'issue',
				description:
					'Issue a bearer token for one tenant (optionally revoking its earlier tokens). The output holds the token: put it into a "Site Management Tenant API" credential, not into a workflow.',
				action: 'Issue a tenant token',
			},
		],
		default: 'issue',
	},
	...issue.description,
];

export const handlers: OperationHandlers = {
	issue: issue.execute,
};
