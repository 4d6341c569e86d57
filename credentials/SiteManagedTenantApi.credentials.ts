import { createHash } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IHttpRequestHelper,
	Icon,
	IN8nHttpFullResponse,
	INodeProperties,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { TOKEN_MINT_UNAVAILABLE } from '../nodes/shared/retry';
import { joinUrl } from '../nodes/shared/url';
import { bearerTokenAuth, tenantSurfaceTest } from './shared';

function serverMessage(body: unknown): string | undefined {
	if (
		typeof body === 'object' &&
		body !== null &&
		typeof (body as IDataObject).message === 'string'
	) {
		return (body as IDataObject).message as string;
	}
	return undefined;
}

function mintError(message: string, transient: boolean): UserError {
	const error = new UserError(message, { level: 'warning' });
	if (transient) Object.assign(error, { code: TOKEN_MINT_UNAVAILABLE });
	return error;
}

/**
 * Mints in flight, keyed by a hash of what decides the token (never the admin token itself).
 * Requests sent at once (Options > Concurrency) all find the stored token empty and would each mint
 * one; they share the first mint instead. Only the promise of a mint in flight is kept: once it
 * settles it is dropped, so a later 401 mints afresh and nothing outlives the request.
 */
const mintsInFlight = new Map<string, Promise<{ accessToken: string }>>();

function mintKey(credentials: ICredentialDataDecryptedObject, lifetime: number): string {
	return createHash('sha256')
		.update(
			JSON.stringify([
				credentials.adminBaseUrl,
				credentials.adminToken,
				credentials.tenantId,
				credentials.baseUrl,
				lifetime,
			]),
		)
		.digest('hex');
}

async function mintToken(
	helpers: IHttpRequestHelper['helpers'],
	credentials: ICredentialDataDecryptedObject,
	lifetime: number,
): Promise<{ accessToken: string }> {
	let response: IN8nHttpFullResponse;
	try {
		response = (await helpers.httpRequest({
			method: 'POST',
			url: joinUrl(credentials.adminBaseUrl, '/api/tenant/token'),
			headers: { Authorization: `Bearer ${String(credentials.adminToken ?? '')}` },
			// No revoke_previous: other executions may still hold a token minted earlier.
			body: { id: credentials.tenantId, expires_in: lifetime },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: 30_000,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		// The HTTP client's error holds the request headers (the admin token): build a new one.
		const code = (error as { code?: string }).code;
		throw mintError(
			`Could not reach the central surface to get a tenant token${code ? ` (${code})` : ''}`,
			true,
		);
	}

	const status = response.statusCode;
	const body = response.body as IDataObject;
	if (status < 200 || status > 299) {
		const reason = serverMessage(body) ?? `HTTP ${status}`;
		throw mintError(
			`Could not get a token for tenant "${String(credentials.tenantId)}" from the central surface: ${reason} (HTTP ${status})`,
			status === 429 || status >= 500,
		);
	}
	const token = body?.token;
	if (typeof token !== 'string' || !token) {
		throw mintError('The central surface answered without a token', false);
	}
	return { accessToken: token };
}

/**
 * A tenant credential that needs nothing pasted: it holds the admin token and mints short-lived
 * tenant tokens itself. n8n calls preAuthentication when the hidden `accessToken` is empty and again
 * when the service answers 401 (expired or revoked token), then repeats the request once.
 */
export class SiteManagedTenantApi implements ICredentialType {
	name = 'siteManagedTenantApi';

	displayName = 'Site Management Managed Tenant API';

	icon: Icon = { light: 'file:site.svg', dark: 'file:site.dark.svg' };

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-site-management#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Admin Base URL',
			name: 'adminBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			required: true,
			description: 'Address of the central (admin) surface, used only to mint tenant tokens',
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
			required: true,
			description: 'ID of the tenant whose site this credential works on',
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
		// (and ignores eslint-disable comments). Credentials saved by 0.1.0 still hold `tokenLifetime`.
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
	];

	async preAuthentication(this: IHttpRequestHelper, credentials: ICredentialDataDecryptedObject) {
		const lifetime = Math.max(
			60,
			Math.floor(Number(credentials.lifetime ?? credentials.tokenLifetime) || 900),
		);
		const key = mintKey(credentials, lifetime);
		let mint = mintsInFlight.get(key);
		if (!mint) {
			mint = mintToken(this.helpers, credentials, lifetime).finally(() =>
				mintsInFlight.delete(key),
			);
			mintsInFlight.set(key, mint);
		}
		return await mint;
	}

	authenticate = bearerTokenAuth('accessToken');

	test = tenantSurfaceTest({
		unauthorized:
			'The minted tenant token was not accepted; check the tenant ID and both base URLs',
		forbidden: 'The tenant surface refused the token (wrong kind of token)',
	});
}
