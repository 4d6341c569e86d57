/**
 * Calls to extensions of the reference server (settings read-back, claims, test webhooks): a service
 * that implements only the described API answers them 404 or 405, which is not an error here but
 * "unsupported", and the caller falls back.
 */
import type { JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

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
		const httpCode = String((error as { httpCode?: unknown }).httpCode ?? '');
		if (httpCode === '404' || httpCode === '405') return undefined;
		// The transport throws NodeApiError (the server's message, no token): pass it on unchanged;
		// anything else (not expected) is wrapped so the node still fails with a node error (n8n's
		// scanner reads no eslint-disable comments and wants no raw rethrow).
		throw error instanceof NodeApiError
			? error
			: new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}
