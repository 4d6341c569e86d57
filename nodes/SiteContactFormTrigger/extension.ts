/**
 * Calls to extensions of the reference server (settings read-back, claims, test webhooks): a service
 * that implements only the described API answers them 404 or 405, which is not an error here but
 * "unsupported", and the caller falls back.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { requestFailure } from '../shared/errors';
import { siteApiRequestFull } from '../shared/transport';
import type {
	SiteCredentialType,
	SiteRequest,
	SiteRequestContext,
	SiteRequestOptions,
	SiteResponse,
} from '../shared/transport';

/** The response, or undefined when the service does not have the endpoint. */
export async function extensionRequest(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse | undefined> {
	try {
		return await siteApiRequestFull.call(ctx, credentialType, request, options);
	} catch (error) {
		// The transport throws NodeApiError (the server's message, no token): passed on unchanged;
		// anything else (not expected) is wrapped so the node still fails with a node error (n8n's
		// scanner reads no eslint-disable comments and wants no raw rethrow).
		const { status } = requestFailure(ctx.getNode(), error, options.itemIndex);
		if (status === 404 || status === 405) return undefined;
		throw error instanceof NodeApiError
			? error
			: new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}
