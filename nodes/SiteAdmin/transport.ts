/** Requests of the Admin node, on the shared sender (../shared/transport.ts): always the admin credential. */
import type { SiteRequest, SiteRequestContext, SiteRequestOptions } from '../shared/transport';
import { siteApiRequest } from '../shared/transport';

/** Sends one request to the Admin API. Returns the parsed body. */
export async function adminApiRequest(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	return await siteApiRequest.call(this, 'siteAdminApi', request, options);
}
