/**
 * Variable > Get: one variable `{key, value}` by key. The service lists variables only
 * (`GET /api/variables`), so the list is read and the key looked up; no such key fails the item.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { unwrapList } from '../../../shared/transport';
import { readVariableKey, variableParameter } from './locator';

const properties: INodeProperties[] = variableParameter('Name of the variable to read');

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['get'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const key = readVariableKey(this, itemIndex);
	const response = await tenantApiRequest.call(
		this,
		{ method: 'GET', path: '/api/variables' },
		{ itemIndex },
	);
	const variable = unwrapList(response).find((candidate) => candidate.key === key);
	if (!variable) {
		throw new NodeOperationError(this.getNode(), `No variable with key "${key}"`, {
			itemIndex,
			description: 'Variable > Get Many lists the keys the site has',
		});
	}
	return variable;
}
