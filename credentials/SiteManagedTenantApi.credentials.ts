import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

import { UserError } from 'n8n-workflow';

import { bearerTokenAuth, tenantSurfaceTest } from './shared';
import { onBaseUrl } from '../nodes/shared/url';
import {
	credentialScope,
	scopeProblem,
	SCOPE_ANY,
	SCOPE_LISTED,
	SCOPE_ONE,
} from '../nodes/shared/tenantScope';
import {
	MAX_TOKEN_LIFETIME_S,
	mintOnHelper,
	mintTenantToken,
	tokenScope,
} from '../nodes/shared/tokenMint';

const sendBearer = bearerTokenAuth('accessToken');

/** The credential's own tenant (its Tenant ID), refused when its scope does not allow it. */
function ownTenant(credentials: ICredentialDataDecryptedObject): string {
	const scope = credentialScope(credentials);
	if (!scope.tenantId) {
		throw new UserError(
			"The Managed Tenant credential's Tenant ID is empty: n8n's own requests with it (its test, the HTTP Request node) act on that tenant. Fill it in.",
		);
	}
	const problem = scopeProblem(scope, scope.tenantId);
	if (problem) throw new UserError(problem);
	return scope.tenantId;
}

/**
 * Whether a request names a proxy: an address (n8n's legacy request helper, the HTTP Request node)
 * or `{host, port}` (n8n's httpRequest). An empty address names none.
 */
function goesThroughProxy(requestOptions: IHttpRequestOptions): boolean {
	const proxy = (requestOptions as { proxy?: unknown }).proxy;
	if (typeof proxy === 'string') return proxy.trim() !== '';
	return proxy !== undefined && proxy !== null && proxy !== false;
}

/**
 * A tenant credential that needs nothing pasted: it holds the admin token and short-lived tenant
 * tokens are minted from it. The nodes mint their own, per tenant and per run
 * (nodes/shared/managedTenant.ts), so that each item reaches the tenant n8n resolves for it.
 *
 * Its Tenant Scope is a limit (nodes/shared/tenantScope.ts): One Tenant (its Tenant ID), Listed
 * Tenants, or Any Tenant, chosen explicitly.
 *
 * preAuthentication and authenticate serve n8n's own uses of the credential (its test, the HTTP
 * Request node), always for its Tenant ID. n8n stores one token per credential and keeps it across
 * edits: the token is stored with its scope (tenant, both base URLs, admin token), and authenticate
 * sends it only while the credential still resolves to that scope (otherwise no token: the service
 * answers 401 and n8n runs preAuthentication for the credential as it is now), and only to the
 * Tenant Base URL, straight: a request for any other address, or through a proxy, fails before
 * anything is sent.
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
			displayName: 'Tenant Scope',
			name: 'tenantScope',
			type: 'options',
			options: [
				{
					name: 'One Tenant',
					value: SCOPE_ONE,
					description: 'Acts on the tenant in Tenant ID only',
				},
				{
					name: 'Listed Tenants',
					value: SCOPE_LISTED,
					description: 'Acts on the tenants in Allowed Tenants only',
				},
				{
					name: 'Any Tenant',
					value: SCOPE_ANY,
					description: 'Acts on every tenant the admin token reaches',
				},
			],
			default: SCOPE_ONE,
			description:
				'Which tenants this credential may act on. A Site Management Tenant node whose Tenant parameter names another tenant fails that item.',
		},
		{
			displayName:
				'Any Tenant: whoever may use this credential (a workflow, a shared credential, an AI agent tool) can read and change every site of the service.',
			name: 'anyTenantNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { tenantScope: [SCOPE_ANY] } },
		},
		{
			displayName: 'Tenant ID',
			name: 'tenantId',
			type: 'string',
			default: '',
			placeholder: 'acme',
			description:
				"The tenant this credential acts on: the only one (One Tenant), else the one used where a node names none (the triggers, n8n's HTTP Request node). It must lie within the scope.",
		},
		{
			displayName: 'Allowed Tenants',
			name: 'allowedTenants',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			placeholder: 'acme, client-*',
			description:
				'Tenant IDs, or patterns where * stands for any characters (client-*), separated by commas or new lines',
			displayOptions: { show: { tenantScope: [SCOPE_LISTED] } },
		},
		{
			displayName:
				'"*" alone would allow every tenant, so it allows none: choose Tenant Scope "Any Tenant" to act on every site (whoever may use this credential can then read and change every site of the service).',
			name: 'catchAllNotice',
			type: 'notice',
			default: '',
			displayOptions: {
				show: {
					tenantScope: [SCOPE_LISTED],
					// An entry of stars alone (tenantScope.ts: isCatchAll); blanks as [ \t\r], which keeps it linear.
					allowedTenants: [{ _cnd: { regex: '(^|[,\\n])[ \\t\\r]*\\*+[ \\t\\r]*($|[,\\n])' } }],
				},
			},
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
			typeOptions: { minValue: 60, maxValue: MAX_TOKEN_LIFETIME_S },
			default: 900,
			description:
				'How long each minted tenant token lives, a minute to a day (86400). A fresh one is minted when the service rejects the current one. Minted tokens cannot be revoked from n8n, so they end on their own.',
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
		const tenantId = ownTenant(credentials);
		const minted = await mintTenantToken(
			mintOnHelper(this.helpers.httpRequest),
			credentials,
			tenantId,
		);
		return { accessToken: minted.token, accessTokenScope: tokenScope(credentials, tenantId) };
	}

	/** The stored token, only for its scope and its host (see the class comment). */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const baseUrl = String(credentials.baseUrl ?? '').trim();
		// n8n's legacy request helper (the HTTP Request node before 4.x, n8n 1.x) names the address `uri`.
		const url = requestOptions.url ?? (requestOptions as { uri?: unknown }).uri;
		if (!onBaseUrl(url, requestOptions.baseURL, baseUrl)) {
			throw new UserError(
				"The Managed Tenant credential sends its token only to its Tenant Base URL: this request goes elsewhere, so it was not sent. Use the credential's Tenant Base URL (or a path on it) as the request's URL.",
			);
		}
		// A proxy would receive the token with the request (HTTP Request > Options > Proxy).
		if (goesThroughProxy(requestOptions)) {
			throw new UserError(
				"The Managed Tenant credential sends its token only straight to its Tenant Base URL: this request goes through a proxy, so it was not sent. Remove the request's proxy (Options > Proxy) to use this credential.",
			);
		}
		const scope = tokenScope(credentials, ownTenant(credentials));
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
