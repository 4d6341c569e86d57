import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as set from './set.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['variable'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a site variable by key',
				action: 'Delete a variable',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Get one site variable by key',
				action: 'Get a variable',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List many site variables as key/value items (only when variables are enabled for the tenant)',
				action: 'Get many variables',
			},
			{
				name: 'Set',
				value: 'set',
				description: 'Create or replace a site variable (key and value)',
				action: 'Set a variable',
			},
		],
		default: 'getAll',
	},
	...getAll.description,
	...get.description,
	...set.description,
	...del.description,
];

export const handlers: OperationHandlers = {
	getAll: getAll.execute,
	get: get.execute,
	set: set.execute,
	delete: del.execute,
};
