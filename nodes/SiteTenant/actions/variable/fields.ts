import type { INodeProperties } from 'n8n-workflow';

export const variableKeyField: INodeProperties = {
	displayName: 'Key',
	name: 'key',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'newsletter_list',
	description: 'Name of the variable',
};
