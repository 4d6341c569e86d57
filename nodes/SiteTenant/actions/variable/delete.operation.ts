/** Variable > Delete: `DELETE /api/variables` with `{key}`. Outputs `{key, deleted: true}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { readVariableKey, variableParameter } from './locator';

const properties: INodeProperties[] = variableParameter('Name of the variable to delete');

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const key = readVariableKey(this, itemIndex);
	await tenantApiRequest.call(
		this,
		{ method: 'DELETE', path: '/api/variables', body: { key } },
		{ itemIndex },
	);
	// What is left of the record, and what happened to it.
	return { key, deleted: true };
}
