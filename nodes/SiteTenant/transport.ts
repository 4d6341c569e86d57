/**
 * Requests of the Tenant node, on the shared sender (../shared/transport.ts) with the credential its
 * Authentication parameter picks: a fixed tenant token or the managed credential that mints its own.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/authentication';
import type {
	AllItemsOptions,
	SiteRequest,
	SiteRequestContext,
	SiteRequestOptions,
	SiteResponse,
} from '../shared/transport';
import { siteApiRequest, siteApiRequestAllItems, siteApiRequestFull } from '../shared/transport';

/** Sends one request with the chosen tenant credential. Returns the parsed body. */
export async function tenantApiRequest(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	return await siteApiRequest.call(
		this,
		tenantCredentialType(this, options.itemIndex),
		request,
		options,
	);
}

/** tenantApiRequest that returns status, headers and body. */
export async function tenantApiRequestFull(
	this: IExecuteFunctions,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	return await siteApiRequestFull.call(
		this,
		tenantCredentialType(this, options.itemIndex),
		request,
		options,
	);
}

/** siteApiRequestAllItems with the chosen tenant credential. */
export async function tenantApiRequestAllItems(
	this: IExecuteFunctions,
	path: string,
	qs: IDataObject,
	paging: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const credentialType = tenantCredentialType(this, options.itemIndex);
	return await siteApiRequestAllItems.call(this, credentialType, path, qs, paging, options);
}
