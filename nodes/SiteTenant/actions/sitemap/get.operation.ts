/**
 * Sitemap > Get: `POST /api/sitemap` with `{}` or `{locale}`. Published pages only. Output the whole
 * sitemap as one item, or one item per page.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest, unwrapList } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Locale',
		name: 'locale',
		type: 'string',
		default: '',
		placeholder: 'en',
		description: 'Only pages in this locale. Leave empty for all locales.',
	},
	{
		displayName: 'Split Into Items',
		name: 'splitIntoItems',
		type: 'boolean',
		default: false,
		description:
			'Whether to output one item per page instead of the whole sitemap ({generated_at, pages}) as one item',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['sitemap'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | IDataObject[]> {
	const locale = String(this.getNodeParameter('locale', itemIndex, '') ?? '').trim();
	const splitIntoItems = this.getNodeParameter('splitIntoItems', itemIndex, false) as boolean;

	const response = await siteRequest.call(
		this,
		{ method: 'POST', path: '/api/sitemap', body: locale ? { locale } : {} },
		{ itemIndex, target },
	);

	const sitemap: IDataObject = Array.isArray(response) ? { pages: response } : objectOr(response);
	if (!splitIntoItems) return sitemap;

	// The pages may come as `pages`, or (another deployment) as a bare list or in `data`.
	return Array.isArray(sitemap.pages) ? (sitemap.pages as IDataObject[]) : unwrapList(response);
}
