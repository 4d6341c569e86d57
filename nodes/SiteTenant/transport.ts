/**
 * Requests of the Tenant node, on the shared sender (../shared/transport.ts) with the credential its
 * Authentication parameter picks: a fixed tenant token or the managed credential that mints its own,
 * for the tenant the node's Tenant parameter names (else the credential's Tenant ID).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/authentication';
import type {
	AllItemsOptions,
	SiteCredentialType,
	SiteRequest,
	SiteRequestContext,
	SiteRequestOptions,
	SiteResponse,
} from '../shared/transport';
import { siteApiRequest, siteApiRequestAllItems, siteApiRequestFull } from '../shared/transport';
import { nodeTenant } from './helpers/tenant';

/** The credential type for the item, and the options with the tenant the node names for it. */
function withTenant(
	ctx: SiteRequestContext,
	options: SiteRequestOptions,
): [SiteCredentialType, SiteRequestOptions] {
	const credentialType = tenantCredentialType(ctx, options.itemIndex);
	if (credentialType !== 'siteManagedTenantApi' || options.tenantId !== undefined)
		return [credentialType, options];
	return [credentialType, { ...options, tenantId: nodeTenant(ctx, options.itemIndex) }];
}

/** Sends one request with the chosen tenant credential. Returns the parsed body. */
export async function tenantApiRequest(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	const [credentialType, withItsTenant] = withTenant(this, options);
	return await siteApiRequest.call(this, credentialType, request, withItsTenant);
}

/** tenantApiRequest that returns status, headers and body. */
export async function tenantApiRequestFull(
	this: IExecuteFunctions,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	const [credentialType, withItsTenant] = withTenant(this, options);
	return await siteApiRequestFull.call(this, credentialType, request, withItsTenant);
}

/** siteApiRequestAllItems with the chosen tenant credential. */
export async function tenantApiRequestAllItems(
	this: IExecuteFunctions,
	path: string,
	qs: IDataObject,
	paging: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const [credentialType, withItsTenant] = withTenant(this, options);
	return await siteApiRequestAllItems.call(this, credentialType, path, qs, paging, withItsTenant);
}
