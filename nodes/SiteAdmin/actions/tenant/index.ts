import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandlers } from '../../../shared/router';
import * as create from './create.operation';
import * as createOrUpdate from './createOrUpdate.operation';
import * as del from './delete.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['tenant'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a tenant (a managed website) with an ID and optionally its domain',
				action: 'Create a tenant',
			},
			{
				name: 'Create or Update',
				value: 'createOrUpdate',
				description: 'Create a tenant, or set the domain of the tenant with this ID if it exists',
				action: 'Create or update a tenant',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a tenant with all its pages, settings and tokens',
				action: 'Delete a tenant',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description:
					'List tenants with their domains (an extension of the reference server: GET /api/tenants)',
				action: 'Get many tenants',
			},
			{
				name: 'Update',
				value: 'update',
				description:
					'Rename a tenant (change its ID) and/or change its domain; a missing tenant is an error unless Create If Missing is on',
				action: 'Update a tenant',
			},
		],
		default: 'create',
	},
	...create.description,
	...createOrUpdate.description,
	...update.description,
	...getAll.description,
	...del.description,
];

export const handlers: OperationHandlers = {
	create: create.execute,
	createOrUpdate: createOrUpdate.execute,
	update: update.execute,
	delete: del.execute,
	getAll: getAll.execute,
};
