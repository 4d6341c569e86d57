/**
 * The Variable parameter of Variable > Get and Delete: a resource locator, From List (searchable,
 * methods/listSearch.ts) or By Key.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readLocatorValue } from '../../helpers/locator';

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
	return [
		{
			...variableLocatorField,
			description: `${description}: pick it from the list or give its key`,
		},
	];
}

/** The variable's key. */
export function readVariableKey(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = readLocatorValue(ctx, 'key', itemIndex);
	if (value === '') {
		throw new NodeOperationError(ctx.getNode(), 'The parameter "Variable" is required', {
			itemIndex,
			description: 'Pick a variable from the list, or choose "By Key" and give its name',
		});
	}
	return value;
}
