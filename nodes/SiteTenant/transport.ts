/**
 * Requests of the Tenant node and the triggers, on the shared sender (../shared/transport.ts) with
 * the credential the Authentication parameter picks; the tenant is decided by ../shared/target.ts.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type {
	AllItemsOptions,
	SiteRequest,
	SiteRequestContext,
	SiteRequestOptions,
	SiteResponse,
} from '../shared/transport';
import { siteApiRequestAllItems, siteApiRequestFull } from '../shared/transport';
import { tenantCredentialType } from '../shared/target';

/** Sends one request with the chosen tenant credential. Returns the parsed body. */
export async function tenantApiRequest(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	const credentialType = tenantCredentialType(this, options.itemIndex);
	return (await siteApiRequestFull.call(this, credentialType, request, options)).body;
}

/** tenantApiRequest that returns status, headers and body. */
export async function tenantApiRequestFull(
	this: IExecuteFunctions,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	const credentialType = tenantCredentialType(this, options.itemIndex);
	return await siteApiRequestFull.call(this, credentialType, request, options);
}

/** siteApiRequestAllItems with the chosen tenant credential. */
export async function tenantApiRequestAllItems(
	this: SiteRequestContext,
	path: string,
	qs: IDataObject,
	paging: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const credentialType = tenantCredentialType(this, options.itemIndex);
	return await siteApiRequestAllItems.call(this, credentialType, path, qs, paging, options);
}
