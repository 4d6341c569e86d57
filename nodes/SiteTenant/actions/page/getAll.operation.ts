/** Page > Get Many: `GET /api/pages`, page by page, with optional locale, draft and url filters. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequestPages } from '../../../shared/transport';
import { isToolForm } from '../../../shared/toolForm';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Draft',
				name: 'draft',
				type: 'options',
				options: [
					{ name: 'Any', value: 'any', description: 'Drafts and published pages' },
					{ name: 'Drafts Only', value: 'true' },
					{ name: 'Published Only', value: 'false' },
				],
				default: 'any',
				description: 'Whether to list only drafts, only published pages, or both',
			},
			{
				displayName: 'Locale',
				name: 'locale',
				type: 'string',
				default: '',
				placeholder: 'en',
				description: 'Only pages in this locale',
			},
			{
				displayName: 'URL',
				name: 'url',
				type: 'string',
				default: '',
				placeholder: '/about-us',
				description: 'Only the page with this URL',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['page'], operation: ['getAll'] } },
	properties,
);

/** As an agent's tool: at most this many pages, whatever the model asks for. */
const TOOL_PAGE_LIMIT = 100;
/** As an agent's tool: the fields of each page a model needs to pick one. */
const TOOL_PAGE_FIELDS = ['url', 'name', 'locale', 'draft', 'updated_at'];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject[]> {
	const asTool = isToolForm(this.getNode());
	let returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	let limit = Number(this.getNodeParameter('limit', itemIndex, 50));
	if (asTool) {
		// A model's limit is bounded: a billion pages would hold the execution and flood its context.
		returnAll = false;
		limit =
			Number.isFinite(limit) && limit >= 1 ? Math.min(Math.floor(limit), TOOL_PAGE_LIMIT) : 20;
	}
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;

	const qs: IDataObject = {};
	if (typeof filters.locale === 'string' && filters.locale.trim())
		qs.locale = filters.locale.trim();
	if (typeof filters.url === 'string' && filters.url.trim()) qs.url = filters.url.trim();
	if (filters.draft === 'true' || filters.draft === 'false') qs.draft = filters.draft;

	const pages = await siteRequestPages.call(
		this,
		'/api/pages',
		qs,
		{ returnAll, limit },
		{ itemIndex, target },
	);
	if (!asTool) return pages;
	return pages.map((page) =>
		Object.fromEntries(TOOL_PAGE_FIELDS.map((field) => [field, page[field] ?? null])),
	);
}
