/**
 * The Key parameter of Variable > Get and Delete. Version 3 on: a resource locator, From List
 * (searchable, methods/listSearch.ts) or By Key; versions 1 and 2 keep the plain string parameter.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readLocatorValue, versionedParameter } from '../../helpers/locator';
import { requireString } from '../../../shared/validation';
import { RECORD_OUTPUT_VERSION } from '../../../shared/version';
import { variableKeyField } from './fields';

const variableLocatorField: INodeProperties = {
	displayName: 'Variable',
	name: 'key',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a variable...',
			typeOptions: { searchListMethod: 'searchVariables', searchable: true },
		},
		{
			displayName: 'By Key',
			name: 'key',
			type: 'string',
			placeholder: 'newsletter_list',
		},
	],
};

export function variableParameter(description: string): INodeProperties[] {
	return versionedParameter(
		{ ...variableKeyField, description },
		{
			...variableLocatorField,
			description: `${description}: pick it from the list or give its key`,
		},
		RECORD_OUTPUT_VERSION,
	);
}

/** The variable's key in every version (versions 1 and 2: the plain Key parameter, as before). */
export function readVariableKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = readLocatorValue(ctx, 'key', itemIndex);
	if (value === undefined) return requireString(ctx, 'key', itemIndex, 'Key');
	if (value === '') {
		throw new NodeOperationError(ctx.getNode(), 'The parameter "Variable" is required', {
			itemIndex,
			description: 'Pick a variable from the list, or choose "By Key" and give its name',
		});
	}
	return value;
}
