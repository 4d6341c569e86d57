/**
 * Tenant > Get Many: `GET /api/tenants`, page by page, ordered by ID, optionally filtered by a search
 * text. Listing tenants is an extension of the reference server: a service without it answers 404 or
 * 405, and the error says so.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget, SiteItem } from '../../../shared/transport';
import { isMissingEndpoint, requestFailure } from '../../../shared/errors';
import { siteRequestPages } from '../../../shared/transport';
import { noTenantListing } from '../../../shared/tenantList';

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
		displayName: 'Search',
		name: 'search',
		type: 'string',
		default: '',
		placeholder: 'acme',
		description: 'Only tenants whose ID contains this text',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['getAll'] } },
	properties,
);

type Paging = { returnAll: boolean; limit?: number };

/**
 * Every tenant `qs` selects (all when `returnAll`), as the service lists them; undefined when the
 * service cannot list tenants (it answers 404 or 405: the listing is an extension).
 */
export async function listedTenants(
	ctx: IExecuteFunctions,
	item: SiteItem,
	qs: IDataObject,
	paging: Paging,
): Promise<IDataObject[] | { unlisted: number }> {
	try {
		return await siteRequestPages.call(ctx, '/api/tenants', qs, paging, item);
	} catch (error) {
		const { failure, status } = requestFailure(ctx.getNode(), error, item.itemIndex);
		if (isMissingEndpoint(status)) return { unlisted: status };
		throw failure;
	}
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = Number(this.getNodeParameter('limit', itemIndex, 50));
	const search = String(this.getNodeParameter('search', itemIndex, '') ?? '').trim();
	const tenants = await listedTenants(this, { itemIndex, target }, search ? { search } : {}, {
		returnAll,
		limit,
	});
	if (!Array.isArray(tenants))
		throw noTenantListing(
			this.getNode(),
			tenants.unlisted,
			itemIndex,
			'keep the list of sites in the workflow (a Set node, a Data Table or a sheet)',
		);
	return tenants;
}
