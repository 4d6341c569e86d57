/**
 * Pieces the Site Management credentials share. Not a credential itself, so it is not listed in
 * package.json; n8n only loads the *.credentials.js files.
 */
import type { IAuthenticateGeneric, ICredentialTestRequest } from 'n8n-workflow';

/** Sends the credential field `tokenField` as a bearer token. */
export function bearerTokenAuth(tokenField: string): IAuthenticateGeneric {
	return {
		type: 'generic',
		properties: {
			headers: {
				Authorization: `={{"Bearer " + $credentials.${tokenField}}}`,
			},
		},
	};
}

/** Tests a tenant-surface credential with the cheapest read (one page), naming why 401/403 failed. */
export function tenantSurfaceTest(messages: { unauthorized: string; forbidden: string }): ICredentialTestRequest {
	return {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/api/pages',
			method: 'GET',
			qs: { per_page: 1 },
		},
		rules: [
			{ type: 'responseCode', properties: { value: 401, message: messages.unauthorized } },
			{ type: 'responseCode', properties: { value: 403, message: messages.forbidden } },
		],
	};
}
