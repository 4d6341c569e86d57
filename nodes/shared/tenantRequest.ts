/**
 * Requests of the Tenant node: the credential is the one its Authentication parameter picks, a fixed
 * tenant token (`siteTenantApi`) or the managed credential that mints its own tokens
 * (`siteManagedTenantApi`).
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

import type { AllItemsOptions, SiteCredentialType, SiteRequest, SiteRequestOptions, SiteResponse } from './transport';
import { siteApiRequest, siteApiRequestAllItems, siteApiRequestFull } from './transport';

export type TenantAuthentication = 'tenantToken' | 'managedTenant';

/** A run of the node, or the editor asking for a list (resource locators' list search). */
export type TenantContext = IExecuteFunctions | ILoadOptionsFunctions;

export function tenantCredentialType(ctx: TenantContext, itemIndex: number): SiteCredentialType {
	// The editor's context has no items: its getNodeParameter takes the fallback second.
	const authentication = (
		'getInputData' in ctx
			? ctx.getNodeParameter('authentication', itemIndex, 'tenantToken')
			: ctx.getNodeParameter('authentication', 'tenantToken')
	) as TenantAuthentication;
	return authentication === 'managedTenant' ? 'siteManagedTenantApi' : 'siteTenantApi';
}

/** siteApiRequest with the Tenant node's chosen credential. Returns the parsed body. */
export async function tenantApiRequest(
	this: TenantContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	return await siteApiRequest.call(this, tenantCredentialType(this, options.itemIndex), request, options);
}

/** siteApiRequestFull with the Tenant node's chosen credential. Returns status, headers and body. */
export async function tenantApiRequestFull(
	this: IExecuteFunctions,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	return await siteApiRequestFull.call(this, tenantCredentialType(this, options.itemIndex), request, options);
}

/** siteApiRequestAllItems with the Tenant node's chosen credential. */
export async function tenantApiRequestAllItems(
	this: IExecuteFunctions,
	path: string,
	qs: IDataObject,
	paging: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	return await siteApiRequestAllItems.call(
		this,
		tenantCredentialType(this, options.itemIndex),
		path,
		qs,
		paging,
		options,
	);
}
