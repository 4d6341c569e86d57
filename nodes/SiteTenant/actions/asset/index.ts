import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandler } from '../../../shared/router';
import * as upload from './upload.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: {
			show: {
				resource: ['asset'],
			},
		},
		options: [
			{
				name: 'Upload',
				value: 'upload',
				description:
					'Upload a file from a binary property of the input item; returns the public URL of the stored asset, to use in page content',
				action: 'Upload an asset',
			},
		],
		default: 'upload',
	},
	...upload.description,
];

export const handlers: Record<string, OperationHandler> = {
	upload: upload.execute,
};
