/**
 * What the Templates parameter means. Versions 1 to 3: any JSON array, an empty one included (it
 * empties the page). Version 4 on: an empty list is refused, so a node run as it comes never wipes a
 * page; emptying a page takes the explicit Clear All Blocks.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { parseJsonValue } from '../../../shared/validation';
import { isVersionAtLeast, SAFE_DEFAULTS_VERSION } from '../../../shared/version';

const HOW_TO_CLEAR = 'To remove every block of the page on purpose, turn on Clear All Blocks.';

export function readTemplates(ctx: IExecuteFunctions, itemIndex: number): IDataObject[] {
	if (!isVersionAtLeast(ctx, SAFE_DEFAULTS_VERSION)) {
		return parseJsonValue(
			ctx,
			ctx.getNodeParameter('templates', itemIndex),
			'Templates',
			'array',
			itemIndex,
		);
	}
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
