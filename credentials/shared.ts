/**
 * Pieces the Site Management credentials share. Not a credential itself, so it is not listed in
 * package.json; n8n only loads the *.credentials.js files.
 */
import type {
	IAuthenticateRuleResponseCode,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	IHttpRequestOptions,
} from 'n8n-workflow';

/** The redirect statuses a test request may get (n8n's client follows 301, 302, 303, 307 and 308). */
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/**
 * `responseCode` rules for a test request that does not follow redirects (following one
 * would send the token to the host the answer names). n8n's rules take a fixed message, so it can
 * name the status but not the Location; the nodes' own errors name both addresses.
 */
export function redirectRules(field: string): IAuthenticateRuleResponseCode[] {
	return REDIRECT_STATUSES.map((status) => ({
		type: 'responseCode' as const,
		properties: {
			value: status,
			message: `The ${field} answered with a redirect (HTTP ${status}). The Site Management Service never redirects, so the test did not follow it and the token was not sent to the other address: enter the service's own address.`,
		},
	}));
}

/**
 * Sends the credential field `tokenField` as a bearer token. A function rather than n8n's generic
 * form (`={{"Bearer " + $credentials.token}}`): n8n evaluates that expression on every request, which
 * cost about a fifth of the client's CPU per request (see docs/performance.md). n8n
 * calls either form the same way, for nodes, credential tests and the HTTP Request node.
 */
export function bearerTokenAuth(
	tokenField: string,
): (
	credentials: ICredentialDataDecryptedObject,
	requestOptions: IHttpRequestOptions,
) => Promise<IHttpRequestOptions> {
	return async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	) => ({
		...requestOptions,
		headers: {
			...requestOptions.headers,
			Authorization: `Bearer ${String(credentials[tokenField] ?? '')}`,
		},
	});
}

/** Tests a tenant-surface credential with the cheapest read (one page), naming why 401/403/404 failed. */
export function tenantSurfaceTest(messages: {
	unauthorized: string;
	forbidden: string;
}): ICredentialTestRequest {
	return {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/api/pages',
			method: 'GET',
			qs: { per_page: 1 },
			disableFollowRedirect: true,
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: messages.unauthorized } },
			{ type: 'responseCode', properties: { value: 403, message: messages.forbidden } },
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'No Site Management site API at this base URL (GET /api/pages answered 404). Give the address without /api.',
				},
			},
			...redirectRules('base URL'),
		],
	};
}
