/**
 * Content > Update: `PUT /api/content` with `{url, templates, banner?}`. Templates and banner are
 * checked before anything is sent: templates a JSON array of objects, banner a JSON object or null.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { parseJsonParameter, requireString } from '../../../shared/validation';
import { recordOf } from '../../../shared/version';
import { pageUrlField } from '../page/fields';
import { pageParameter, readPageUrl } from '../page/locator';
import { readBannerChange } from './readBannerChange';

const properties: INodeProperties[] = [
	...pageParameter(
		{ ...pageUrlField, description: 'Url of the page whose content is replaced, e.g. "/about-us"' },
		{ description: 'The page whose content is replaced: pick it from the list or give its url' },
	),
	{
		displayName: 'Templates',
		name: 'templates',
		type: 'json',
		default: '[]',
		required: true,
		description:
			'The page\'s content blocks, in order: a JSON array of objects, e.g. [{"type": "text", "text": "Hello"}]. Replaces all current blocks.',
	},
	{
		displayName: 'Clear Banner',
		name: 'clearBanner',
		type: 'boolean',
		default: false,
		description: "Whether to remove the page's banner (sends banner: null)",
	},
	{
		displayName: 'Banner',
		name: 'banner',
		type: 'json',
		default: '',
		displayOptions: { show: { clearBanner: [false] } },
		description:
			'The page\'s banner as a JSON object, e.g. {"image": "https://…/hero.jpg", "title": "Welcome"}. Leave empty to keep the current banner; the word null removes it.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['update'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const url = readPageUrl(this, itemIndex, () => requireString(this, 'url', itemIndex, 'Page URL'));
	const templates = parseJsonParameter(this, 'templates', itemIndex, 'array', 'Templates');
	const bannerChange = readBannerChange(this, itemIndex);

	const body: IDataObject = { url, templates };
	if (bannerChange.send) body.banner = bannerChange.banner;

	const response = await tenantApiRequest.call(
		this,
		{ method: 'PUT', path: '/api/content', body },
		{ itemIndex },
	);
	// Version 3: the updated page; versions 1 and 2: the answer `{message, page}`.
	return recordOf(this, response, 'page');
}
