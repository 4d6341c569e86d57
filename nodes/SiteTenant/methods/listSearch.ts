/**
 * The editor's searchable lists behind the resource locators (Page, Variable). They go through the
 * sender like every operation: the chosen credential, retries, errors without the token.
 */
import type {
	IDataObject,
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';

import { resolveTenantTarget } from '../../shared/target';
import { listTenants } from '../../shared/tenantList';
import {
	lastPageOf,
	nextSearchPage,
	searchPageOf,
	siteRequest,
	unwrapList,
} from '../../shared/transport';

/** Pages per list page: the editor asks for the next one as the user scrolls. */
const PAGE_SEARCH_SIZE = 50;

function pageItem(page: IDataObject): INodeListSearchItems {
	const hint = [
		page.locale ? `Locale ${String(page.locale)}` : '',
		page.draft === true ? 'draft' : 'published',
	]
		.filter(Boolean)
		.join(' · ');
	return {
		name: `${String(page.name ?? page.url)} (${String(page.url)})`,
		value: String(page.url),
		description: hint,
	};
}

/** Pages whose name or url contains `filter` (the server's `search`), one list page at a time. */
export async function searchPages(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = searchPageOf(paginationToken);
	const qs: IDataObject = { page, per_page: PAGE_SEARCH_SIZE };
	if (filter?.trim()) qs.search = filter.trim();
	const response = (await siteRequest.call(
		this,
		{ method: 'GET', path: '/api/pages', qs },
		{ itemIndex: 0, target: await resolveTenantTarget(this) },
	)) as IDataObject;
	return {
		results: unwrapList(response).map(pageItem),
		paginationToken: nextSearchPage(page, lastPageOf(response)),
	};
}

/** Variables whose key contains `filter` (case-insensitive); the service lists them all at once. */
export async function searchVariables(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const response = await siteRequest.call(
		this,
		{ method: 'GET', path: '/api/variables' },
		{ itemIndex: 0, target: await resolveTenantTarget(this) },
	);
	const fragment = filter?.trim().toLowerCase() ?? '';
	return {
		results: unwrapList(response)
			.filter((variable) => String(variable.key).toLowerCase().includes(fragment))
			.map((variable) => ({
				name: String(variable.key),
				value: String(variable.key),
				description: String(variable.value ?? ''),
			})),
	};
}

/**
 * Tenants whose id contains `filter`, through the Managed Tenant credential's Admin API. Listing
 * tenants is a reference-server extension (`GET /api/tenants`); against a service without it the
 * error says to use By ID.
 */
export async function searchTenants(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await listTenants(this, 'siteManagedTenantApi', filter, paginationToken);
}
