import type { INodeProperties } from 'n8n-workflow';

import type { OperationHandler } from '../../../shared/router';
import * as applyProposal from './applyProposal.operation';
import * as getPageContext from './getPageContext.operation';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: {
			show: {
				resource: ['ai'],
			},
		},
		options: [
			{
				name: 'Apply Proposal',
				value: 'applyProposal',
				description:
					'Validate an AI proposal of a page path, templates and an optional banner (object, JSON text, fenced JSON or chat-completion output) and update the page content with it; Dry Run shows the changes without sending',
				action: 'Apply an AI content proposal',
				builderHint: {
					propertyHint:
						"Writes to the live site. Put a person's approval (Wait node) before it, its Dry Run before that, and give Page Version from Get Page Context (e.g. {{ $('Get Page Context').item.json.version }}) so a page changed since is not overwritten.",
				},
			},
			{
				name: 'Get Page Context',
				value: 'getPageContext',
				description:
					"Read a page's fields and content, plus a compact text rendering to put into an AI prompt",
				action: 'Get page context for AI',
				builderHint: {
					propertyHint:
						'Read-only. Its output prompt ({{ $json.prompt }}) is the whole prompt for a model, and version is what Apply Proposal checks before writing.',
				},
			},
		],
		default: 'getPageContext',
	},
	...getPageContext.description,
	...applyProposal.description,
];

export const handlers: Record<string, OperationHandler> = {
	getPageContext: getPageContext.execute,
	applyProposal: applyProposal.execute,
};
