/**
 * Page > Create: `POST /api/page` with `{name, url, locale, meta_title?, meta_description?, draft?}`,
 * from one parameter per field (node version 1) or from n8n's resource mapper (version 2).
 */
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
import { fieldsByVersion, recordFields, type ServiceField } from '../../../shared/fieldMapping';
import { pageUrlField } from './fields';

/** The page's fields as the service names them; `methods.resourceMapping.pageFields` lists them. */
export const PAGE_FIELDS: readonly ServiceField[] = [
	{ id: 'name', displayName: 'Name', type: 'string', required: true },
	{ id: 'url', displayName: 'Page URL', type: 'string', required: true },
	{ id: 'locale', displayName: 'Locale', type: 'string', required: true },
	{ id: 'meta_title', displayName: 'Meta Title', type: 'string' },
	{ id: 'meta_description', displayName: 'Meta Description', type: 'string' },
	{ id: 'draft', displayName: 'Draft', type: 'boolean' },
];

const fieldsPerParameter: INodeProperties[] = [
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
];

const properties: INodeProperties[] = [
	...fieldsByVersion(fieldsPerParameter, 'pageFields', 'page'),
	dryRunProperty('whether a page has the URL'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['create'] } },
	properties,
);

/** Version 1's body: one parameter per field. */
function bodyFromParameters(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const body: IDataObject = {
		name: requireString(ctx, 'name', itemIndex, 'Name'),
		url: requireString(ctx, 'url', itemIndex, 'Page URL'),
		locale: requireString(ctx, 'locale', itemIndex, 'Locale'),
	};
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (additional.metaTitle !== undefined) body.meta_title = additional.metaTitle;
	if (additional.metaDescription !== undefined) body.meta_description = additional.metaDescription;
	if (additional.draft !== undefined) body.draft = additional.draft === true;
	return body;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const body = recordFields(this, itemIndex, PAGE_FIELDS, bodyFromParameters);

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
