/** Page > Create: `POST /api/page` with `{name, url, locale, meta_title?, meta_description?, draft?}`. */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { requireString } from '../../../shared/validation';
import { recordIn } from '../../../shared/json';
import { dryRunItem, dryRunProperty } from '../../helpers/dryRun';
import { findPageByUrl } from '../../../shared/pages';
import { pageUrlField } from './fields';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'About us',
		description: 'Name (title) of the page',
	},
	{
		...pageUrlField,
		description: 'URL of the new page, a site path such as "/about-us"; must not be taken yet',
	},
	{
		displayName: 'Locale',
		name: 'locale',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'en',
		description: 'Language of the page, e.g. "en" or "de"',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Draft',
				name: 'draft',
				type: 'boolean',
				default: false,
				description:
					'Whether the page is a draft (drafts are not published and not in the sitemap)',
			},
			{
				displayName: 'Meta Description',
				name: 'metaDescription',
				type: 'string',
				default: '',
				description: 'SEO description of the page',
			},
			{
				displayName: 'Meta Title',
				name: 'metaTitle',
				type: 'string',
				default: '',
				description: 'SEO title of the page',
			},
		],
	},
	dryRunProperty('whether a page has the URL'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const body: IDataObject = {
		name: requireString(this, 'name', itemIndex, 'Name'),
		url: requireString(this, 'url', itemIndex, 'Page URL'),
		locale: requireString(this, 'locale', itemIndex, 'Locale'),
	};
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (additional.metaTitle !== undefined) body.meta_title = additional.metaTitle;
	if (additional.metaDescription !== undefined) body.meta_description = additional.metaDescription;
	if (additional.draft !== undefined) body.draft = additional.draft === true;

	if (target.dryRun) {
		const page = await findPageByUrl.call(this, String(body.url), { itemIndex, target });
		return dryRunItem(
			this,
			itemIndex,
			page ? { result: 'exists', current: page } : { result: 'would create', wouldSend: body },
		);
	}

	const response = await siteRequest.call(
		this,
		{ method: 'POST', path: '/api/page', body },
		{ itemIndex, target },
	);
	return recordIn(response, 'page');
}
