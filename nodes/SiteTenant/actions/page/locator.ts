/**
 * The Page parameter: a resource locator, From List (searchable, methods/listSearch.ts) or By URL (a
 * site path or a full address on the site).
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readLocatorValue } from '../../helpers/locator';
import { PAGE_URL_PATTERN, sitePath } from './sitePath';

const BY_URL_HINT =
	'Give a site path such as /about-us, or a full address on the site such as https://example.com/about-us';

const pageLocatorField: INodeProperties = {
	displayName: 'Page',
	name: 'url',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The page: pick it from the list (search by name or URL) or give its URL',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a page...',
			typeOptions: { searchListMethod: 'searchPages', searchable: true },
		},
		{
			displayName: 'By URL',
			name: 'url',
			type: 'string',
			placeholder: '/about-us',
			validation: [
				{
					type: 'regex',
					properties: { regex: PAGE_URL_PATTERN, errorMessage: `Not a page url. ${BY_URL_HINT}.` },
				},
			],
		},
	],
};

/** The page parameter of one operation, with the operation's own wording. */
export function pageParameter(locator: Partial<INodeProperties> = {}): INodeProperties {
	return { ...pageLocatorField, ...locator };
}

/**
 * The page url the Page parameter names. Its value (also one set by an expression) is checked again
 * here: the editor's regex does not see values computed at run time. Returns '' for an empty optional
 * parameter.
 */
export function readPageUrl(ctx: IExecuteFunctions, itemIndex: number, optional = false): string {
	const value = readLocatorValue(ctx, 'url', itemIndex);
	if (value === '') {
		if (optional) return '';
		throw new NodeOperationError(ctx.getNode(), 'The parameter "Page" is required', {
			itemIndex,
			description: `Pick a page from the list, or choose "By URL". ${BY_URL_HINT}.`,
		});
	}
	const path = sitePath(value);
	if (path === undefined) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The parameter "Page" is not a page url: "${value}"`,
			{
				itemIndex,
				description: `${BY_URL_HINT}.`,
			},
		);
	}
	return path;
}
