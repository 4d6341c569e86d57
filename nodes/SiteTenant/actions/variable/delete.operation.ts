/** Variable > Delete: `DELETE /api/variables` with `{key}`. Version 3 outputs `{key, deleted: true}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { tenantApiRequest } from '../../transport';
import { outputsRecords } from '../../../shared/version';
import { readVariableKey, variableParameter } from './locator';

const properties: INodeProperties[] = variableParameter('Name of the variable to delete');

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const key = readVariableKey(this, itemIndex);
	const response = objectOr(
		await tenantApiRequest.call(
			this,
			{ method: 'DELETE', path: '/api/variables', body: { key } },
			{ itemIndex },
		),
	);
	// Version 3: what is left of the record, and what happened to it.
	if (outputsRecords(this)) return { key, deleted: true };
	return { ...response, key, deleted: true };
}
