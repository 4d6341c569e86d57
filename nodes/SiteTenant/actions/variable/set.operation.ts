/**
 * Variable > Set: `PUT /api/variables` with `{key, value}`; creates or replaces the variable. The key
 * and value come from two parameters (node version 1) or from n8n's resource mapper (version 2).
 */
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
import { fieldsByVersion, recordFields, type ServiceField } from '../../../shared/fieldMapping';

/** `methods.resourceMapping.variableFields` lists these; an empty value is a value. */
export const VARIABLE_FIELDS: readonly ServiceField[] = [
	{ id: 'key', displayName: 'Key', type: 'string', required: true },
	{ id: 'value', displayName: 'Value', type: 'string', required: true, keepEmpty: true },
];

const fieldsPerParameter: INodeProperties[] = [
	{ ...variableKeyField, description: 'Name of the variable to create or replace' },
	{
		displayName: 'Value',
		name: 'value',
		type: 'string',
		default: '',
		description: 'Value of the variable',
	},
];

const properties: INodeProperties[] = [
	...fieldsByVersion(fieldsPerParameter, 'variableFields', 'variable'),
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
	const body = recordFields(this, itemIndex, VARIABLE_FIELDS, (ctx, i) => ({
		key: requireString(ctx, 'key', i, 'Key'),
		value: ctx.getNodeParameter('value', i, '') as string,
	}));
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
