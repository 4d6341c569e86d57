/** Variable > Delete: `DELETE /api/variables` with `{key}`. Outputs `{key, deleted: true}`. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { readVariableKey, variableParameter } from './locator';
import { dryRunItem, dryRunProperty } from '../../helpers/dryRun';
import { findVariable, readVariable } from './get.operation';
import {
	assertUnchanged,
	onlyIfUnchanged,
	onlyIfUnchangedProperties,
} from '../../helpers/onlyIfUnchanged';

const properties: INodeProperties[] = [
	...variableParameter('Name of the variable to delete'),
	dryRunProperty('the variables'),
	...onlyIfUnchangedProperties('variable has'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const key = readVariableKey(this, itemIndex);
	if (target.dryRun) {
		// A key the site does not have fails the item, as the delete would.
		const current = await readVariable(this, key, { itemIndex, target });
		return dryRunItem(this, itemIndex, { result: 'would delete', current });
	}
	if (onlyIfUnchanged(this, itemIndex)) {
		const current = await findVariable(this, key, { itemIndex, target });
		assertUnchanged(this, itemIndex, current, ['value'], `variable "${key}"`);
	}
	await siteRequest.call(
		this,
		{ method: 'DELETE', path: '/api/variables', body: { key } },
		{ itemIndex, target },
	);
	// What is left of the record, and what happened to it.
	return { key, deleted: true };
}
