/** Variable > Set: `PUT /api/variables` with `{key, value}`; creates or replaces the variable. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { requireString } from '../../../shared/validation';
import { recordIn } from '../../../shared/json';
import { variableKeyField } from './fields';

const properties: INodeProperties[] = [
	{ ...variableKeyField, description: 'Name of the variable to create or replace' },
	{
		displayName: 'Value',
		name: 'value',
		type: 'string',
		default: '',
		description: 'Value of the variable',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['set'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const body: IDataObject = {
		key: requireString(this, 'key', itemIndex, 'Key'),
		value: this.getNodeParameter('value', itemIndex, '') as string,
	};
	const response = await tenantApiRequest.call(
		this,
		{ method: 'PUT', path: '/api/variables', body },
		{ itemIndex },
	);
	return recordIn(response, 'variable');
}
