import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Reads a page url parameter: a site path such as `/about-us`. A full address
 * (`https://example.com/about-us?x=1`) is accepted and reduced to its path.
 * Returns '' for an empty value when `optional` is set.
 */
export function readPagePath(
	ctx: IExecuteFunctions,
	parameterName: string,
	displayName: string,
	itemIndex: number,
	optional = false,
): string {
	const raw = String(ctx.getNodeParameter(parameterName, itemIndex, '') ?? '').trim();
	if (raw === '') {
		if (optional) return '';
		throw new NodeOperationError(ctx.getNode(), `The parameter "${displayName}" is required`, {
			itemIndex,
			description: 'Give the page path, e.g. /about-us',
		});
	}
	let path = raw;
	if (/^https?:\/\//i.test(raw)) {
		try {
			path = new URL(raw).pathname;
		} catch {
			path = raw;
		}
	}
	if (!path.startsWith('/')) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The parameter "${displayName}" must be a site path starting with "/", got "${raw}"`,
			{ itemIndex, description: 'Give the page path, e.g. /about-us' },
		);
	}
	return path;
}
