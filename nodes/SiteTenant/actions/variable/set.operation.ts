/** Variable > Set: `PUT /api/variables` with `{key, value}`; creates or replaces the variable. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { requireString } from '../../../shared/validation';
import { recordIn } from '../../../shared/json';
import { variableKeyField } from './fields';
import { dryRunItem, dryRunProperty, withResult, fieldChanges } from '../../helpers/dryRun';
import { findVariable } from './get.operation';
import {
	assertUnchanged,
	onlyIfUnchanged,
	onlyIfUnchangedProperties,
} from '../../helpers/onlyIfUnchanged';

const properties: INodeProperties[] = [
	{ ...variableKeyField, description: 'Name of the variable to create or replace' },
	{
		displayName: 'Value',
		name: 'value',
		type: 'string',
		default: '',
		description: 'Value of the variable',
	},
	dryRunProperty('the variables'),
	...onlyIfUnchangedProperties('variable has'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['set'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const body: IDataObject = {
		key: requireString(this, 'key', itemIndex, 'Key'),
		value: this.getNodeParameter('value', itemIndex, '') as string,
	};
	const checked = onlyIfUnchanged(this, itemIndex);
	const current =
		target.dryRun || checked
			? await findVariable(this, String(body.key), { itemIndex, target })
			: undefined;
	if (target.dryRun) {
		const preview = current
			? { ...withResult(fieldChanges(current, { value: body.value })), key: body.key }
			: { result: 'would create', wouldSend: body };
		return dryRunItem(this, itemIndex, preview);
	}
	if (checked)
		assertUnchanged(this, itemIndex, current, ['value'], `variable "${String(body.key)}"`);

	const response = await siteRequest.call(
		this,
		{ method: 'PUT', path: '/api/variables', body },
		{ itemIndex, target },
	);
	return recordIn(response, 'variable');
}
