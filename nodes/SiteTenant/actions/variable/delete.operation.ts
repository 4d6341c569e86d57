/** Variable > Delete: `DELETE /api/variables` with `{key}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../../shared/tenantRequest';
import { requireString } from '../../../shared/validation';
import { variableKeyField } from './fields';

const properties: INodeProperties[] = [{ ...variableKeyField, description: 'Name of the variable to delete' }];

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['delete'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const key = requireString(this, 'key', itemIndex, 'Key');
	const response = (await tenantApiRequest.call(
		this,
		{ method: 'DELETE', path: '/api/variables', body: { key } },
		{ itemIndex },
	)) as IDataObject | undefined;
	return { ...(response ?? {}), key, deleted: true };
}
