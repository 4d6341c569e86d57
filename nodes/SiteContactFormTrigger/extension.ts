/**
 * Calls to extensions of the reference server (settings read-back, claims, test webhooks): a service
 * that implements only the described API answers them 404 or 405, which is not an error here but
 * "unsupported", and the caller falls back.
 */
import type {
	SiteRequest,
	SiteRequestContext,
	SiteRequestOptions,
	SiteResponse,
} from '../shared/transport';
import { isMissingEndpoint } from '../shared/errors';
import { siteRequestFull } from '../shared/transport';

/** The response, or undefined when the service does not have the endpoint. */
export async function extensionRequest(
	ctx: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse | undefined> {
	// A 404 of the token mint before it (a missing tenant) is an error, not "unsupported".
	const response = await siteRequestFull.call(ctx, request, {
		...options,
		acceptStatus: isMissingEndpoint,
	});
	return isMissingEndpoint(response.statusCode) ? undefined : response;
}
