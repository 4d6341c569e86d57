/**
 * What the Templates parameter means: a JSON array of objects. An empty list is refused, so a node
 * run as it comes never wipes a page; emptying a page takes the explicit Clear All Blocks.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseJsonValue } from '../../../shared/validation';

const HOW_TO_CLEAR = 'To remove every block of the page on purpose, turn on Clear All Blocks.';

export function readTemplates(ctx: IExecuteFunctions, itemIndex: number): IDataObject[] {
	if (ctx.getNodeParameter('clearAllBlocks', itemIndex, false) as boolean) return [];

	const value = ctx.getNodeParameter('templates', itemIndex, '') as unknown;
	if (value === undefined || value === null || (typeof value === 'string' && !value.trim())) {
		throw new NodeOperationError(ctx.getNode(), 'Templates is required', {
			itemIndex,
			description: `Give the page's content blocks as a JSON array of objects. ${HOW_TO_CLEAR}`,
		});
	}
	const templates = parseJsonValue(ctx, value, 'Templates', 'array', itemIndex);
	if (templates.length === 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Templates is an empty list: that would remove every block of the page',
			{ itemIndex, description: `Nothing was sent. ${HOW_TO_CLEAR}` },
		);
	}
	return templates;
}
