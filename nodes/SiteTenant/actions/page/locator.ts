/**
 * The Page parameter. Version 3 on: a resource locator, From List (searchable, methods/listSearch.ts)
 * or By URL (a site path or a full address on the site). Versions 1 and 2 keep the plain string
 * parameter their workflows were saved with, read as they always were.
 */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readLocatorValue, versionedParameter } from '../../helpers/locator';
import { RECORD_OUTPUT_VERSION } from '../../../shared/version';
import { PAGE_URL_PATTERN, sitePath } from './sitePath';

/** The version that brought the resource locators (the same as the record outputs). */
export const LOCATOR_VERSION = RECORD_OUTPUT_VERSION;

const BY_URL_HINT =
	'Give a site path such as /about-us, or a full address on the site such as https://example.com/about-us';

export const pageLocatorField: INodeProperties = {
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

/**
 * The page parameter of one operation in every version: `legacy` (the string parameter of versions 1
 * and 2, unchanged) and the resource locator from version 3, with the operation's own wording.
 */
export function pageParameter(
	legacy: INodeProperties,
	locator: Partial<INodeProperties> = {},
): INodeProperties[] {
	return versionedParameter(legacy, { ...pageLocatorField, ...locator }, LOCATOR_VERSION);
}

/**
 * The page url the Page parameter names. Versions 1 and 2 (a plain string) are read by `legacy`, as
 * before. A locator's value (also one set by an expression) is checked again here: the editor's
 * regex does not see values computed at run time. Returns '' for an empty optional parameter.
 */
export function readPageUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	legacy: () => string,
	optional = false,
): string {
	const value = readLocatorValue(ctx, 'url', itemIndex);
	if (value === undefined) return legacy();
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
