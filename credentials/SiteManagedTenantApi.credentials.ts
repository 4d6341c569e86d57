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

import { isRedirectStatus, redirectMessage } from '../nodes/shared/redirect';
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

/** What one mint gave: the token, when it stops being worth handing out, and what it replaced. */
interface Mint {
	accessToken: string;
	/** Milliseconds since the epoch after which the token is not handed out again. */
	usableUntil: number;
	/** sha256 of the rejected token this mint was made to replace ('' for a first mint). */
	replaces: string;
	/** When the mint was asked for (milliseconds since the epoch). */
	mintedAt: number;
}

/**
 * The last mint per credential in this process (in flight or done), keyed by a hash of what decides
 * the token (never the admin token itself), until the token expires.
 *
 * Why it outlives the mint: n8n (packages/cli CredentialsHelper.preAuthentication) runs
 * preAuthentication when the credential it read from the database has no token, then stores the
 * result. With many requests in flight, most read the credential before the first mint is stored:
 * they run preAuthentication after that mint has settled, and a cache that forgot settled mints
 * minted 4-5 live tokens for one execution of 60 creates. A request whose credential has no token
 * gets the token minted here while it is still valid; one whose token was rejected (401) gets a new
 * mint, shared by every request that presents the same rejected token.
 *
 * Per process by design: it only saves mints. A token is never trusted because it is cached (a
 * rejected one is replaced at once), and another process (queue-mode worker) finds the token n8n
 * stored in the credential, or mints its own. Entries go when their token expires.
 */
const mints = new Map<string, MintEntry>();

interface MintEntry {
	mint: Promise<Mint>;
	/** Set once the mint succeeded (a failed mint's entry is removed). */
	done?: Mint;
}

/** A token is handed out again only if it has at least this long to live. */
const REUSE_MARGIN_MS = 30_000;

/**
 * How long a replacement is shared with requests that present the token it replaced: the requests
 * in flight when the service rejected it (a request's timeout is 30 s). Later, the presented token
 * may have come back from another process's store and the replacement been revoked since: mint anew.
 */
const SHARE_REPLACEMENT_MS = 60_000;

const sha256 = (value: unknown) =>
	createHash('sha256')
		.update(String(value ?? ''))
		.digest('hex');

function mintKey(credentials: ICredentialDataDecryptedObject, lifetime: number): string {
	return sha256(
		JSON.stringify([
			credentials.adminBaseUrl,
			credentials.adminToken,
			credentials.tenantId,
			credentials.baseUrl,
			lifetime,
		]),
	);
}

async function mintToken(
	helpers: IHttpRequestHelper['helpers'],
	credentials: ICredentialDataDecryptedObject,
	lifetime: number,
	replaces: string,
): Promise<Mint> {
	const url = joinUrl(credentials.adminBaseUrl, '/api/tenant/token');
	const startedAt = Date.now();
	let response: IN8nHttpFullResponse;
	try {
		response = (await helpers.httpRequest({
			method: 'POST',
			url,
			headers: { Authorization: `Bearer ${String(credentials.adminToken ?? '')}` },
			// No revoke_previous: other executions may still hold a token minted earlier.
			body: { id: credentials.tenantId, expires_in: lifetime },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// A redirect would carry the admin token to another host: it is an error below.
			disableFollowRedirect: true,
			timeout: 30_000,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		// The HTTP client's error holds the request headers (the admin token): build a new one.
		const code = (error as { code?: string }).code;
		throw mintError(
			`Could not reach the Admin API to get a tenant token${code ? ` (${code})` : ''}`,
			true,
		);
	}

	const status = response.statusCode;
	const body = response.body as IDataObject;
	if (isRedirectStatus(status)) {
		throw mintError(
			`Could not get a tenant token: ${redirectMessage(url, status, response.headers)}`,
			false,
		);
	}
	if (status < 200 || status > 299) {
		const reason = serverMessage(body) ?? `HTTP ${status}`;
		throw mintError(
			`Could not get a token for tenant "${String(credentials.tenantId)}" from the Admin API: ${reason} (HTTP ${status})`,
			status === 429 || status >= 500,
		);
	}
	const token = body?.token;
	if (typeof token !== 'string' || !token) {
		throw mintError('The Admin API answered without a token', false);
	}
	const expiresAt = Date.parse(String(body.expires_at ?? ''));
	const expiry = Number.isNaN(expiresAt) ? startedAt + lifetime * 1000 : expiresAt;
	return {
		accessToken: token,
		usableUntil: expiry - REUSE_MARGIN_MS,
		replaces,
		mintedAt: startedAt,
	};
}

/** Drops the entries whose token can no longer be handed out. */
function forgetExpired(now: number) {
	for (const [key, entry] of mints) {
		if (entry.done && entry.done.usableUntil <= now) mints.delete(key);
	}
}

/**
 * The token for a request whose credential holds `presented` ('' when n8n has none stored): the
 * last mint's while it is valid and not the one the service rejected, else a new mint that replaces
 * it (one for all requests that present the same rejected token).
 */
async function tokenFor(
	helpers: IHttpRequestHelper['helpers'],
	credentials: ICredentialDataDecryptedObject,
	lifetime: number,
): Promise<string> {
	const key = mintKey(credentials, lifetime);
	const presented = String(credentials.accessToken ?? '');
	const rejected = presented ? sha256(presented) : '';
	forgetExpired(Date.now());
	const last = mints.get(key);
	if (last) {
		const mint = await last.mint.catch(() => undefined);
		if (
			mint &&
			mint.usableUntil > Date.now() &&
			mint.accessToken !== presented &&
			(!presented ||
				(mint.replaces === rejected && Date.now() - mint.mintedAt < SHARE_REPLACEMENT_MS))
		) {
			return mint.accessToken;
		}
		// Another request may have started the replacement while this one waited for the last mint.
		const current = mints.get(key);
		if (current && current !== last) return await tokenFor(helpers, credentials, lifetime);
	}
	const entry: MintEntry = { mint: mintToken(helpers, credentials, lifetime, rejected) };
	mints.set(key, entry);
	entry.mint.then(
		(mint) => {
			entry.done = mint;
		},
		() => {
			if (mints.get(key) === entry) mints.delete(key);
		},
	);
	return (await entry.mint).accessToken;
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

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-site-management';

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
		return { accessToken: await tokenFor(this.helpers, credentials, lifetime) };
	}

	authenticate = bearerTokenAuth('accessToken');

	test = tenantSurfaceTest({
		unauthorized:
			'The minted tenant token was not accepted; check the tenant ID and both base URLs',
		forbidden: 'The tenant surface refused the token (wrong kind of token)',
	});
}
