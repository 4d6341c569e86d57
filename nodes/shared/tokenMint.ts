/**
 * Turning the admin token into a short-lived tenant token (`POST /api/tenant/token`), and the scope a
 * minted token belongs to. Used by the Managed Tenant credential (n8n's preAuthentication, for the
 * credential test and the HTTP Request node) and by the nodes, which mint per tenant and per run
 * (managedTenant.ts). Imports shared code only, nothing from a node or a credential.
 */
import { createHash } from 'crypto';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { UserError } from 'n8n-workflow';
import { readThrownRequestError } from './errors';
import { withoutTrailingSlashes } from './url';

/** Error code of a mint that failed transiently (unreachable, 429, 5xx): minting again may work. */
export const TOKEN_MINT_UNAVAILABLE = 'SITE_TOKEN_MINT_UNAVAILABLE';

const DEFAULT_TOKEN_LIFETIME_S = 900;
const MIN_TOKEN_LIFETIME_S = 60;
/**
 * A day at most: a minted token cannot be revoked from n8n (the nodes do not keep it past their run,
 * but n8n's stored copy for the HTTP Request node lives until it expires), so a leaked or forgotten
 * token is dead by tomorrow.
 */
export const MAX_TOKEN_LIFETIME_S = 86_400;

/** What a mint gave. */
export interface MintedToken {
	token: string;
	/** Milliseconds since the epoch when the service stops accepting it. */
	expiresAt: number;
}

/** The mint's request: a POST of `body` to `path` on the Admin API with the admin token. */
export interface MintRequest {
	adminBaseUrl: string;
	adminToken: string;
	path: string;
	body: IDataObject;
	/** Milliseconds. */
	timeout: number;
	abortSignal?: AbortSignal;
}

/** The Admin API's answer to a mint, whatever its status (a redirect is handed back, not followed). */
export interface MintAnswer {
	statusCode: number;
	headers?: IDataObject;
	body: unknown;
}

/** Sends a mint: the nodes through their sender (auth.ts), the credential through n8n's helper. */
export type MintSend = (request: MintRequest) => Promise<MintAnswer>;

/** MintSend on n8n's plain helper: for the credential's preAuthentication, which has no sender. */
export function mintOnHelper(
	httpRequest: (options: IHttpRequestOptions) => Promise<unknown>,
): MintSend {
	return async ({ adminBaseUrl, adminToken, path, body, timeout, abortSignal }) =>
		(await httpRequest({
			method: 'POST',
			url: `${withoutTrailingSlashes(adminBaseUrl)}${path}`,
			headers: { Authorization: `Bearer ${adminToken}` },
			body,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout,
			...(abortSignal ? { abortSignal } : {}),
		})) as IN8nHttpFullResponse;
}

/** What to say about a redirect answer to the mint (the nodes name both addresses). */
type RedirectMessage = (url: string, status: number, headers: IDataObject) => string;

const plainRedirectMessage: RedirectMessage = (_url, status) =>
	`the Admin API answered with a redirect (HTTP ${status}). The Site Management Service never redirects, so the admin token was not sent there: check the Admin Base URL.`;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** The credential's Token Lifetime in seconds (a minute to a day). */
function tokenLifetime(credentials: ICredentialDataDecryptedObject): number {
	const seconds = Math.floor(Number(credentials.lifetime) || DEFAULT_TOKEN_LIFETIME_S);
	return Math.min(MAX_TOKEN_LIFETIME_S, Math.max(MIN_TOKEN_LIFETIME_S, seconds));
}

/**
 * What a token minted with these credentials for `tenantId` may be used for: that tenant, on that
 * tenant base URL, minted through that Admin API with that admin token. A hash, so that it can be
 * stored beside the token and compared without holding the admin token.
 */
export function tokenScope(credentials: ICredentialDataDecryptedObject, tenantId: string): string {
	return sha256(
		JSON.stringify([
			String(credentials.adminBaseUrl ?? '').trim(),
			sha256(String(credentials.adminToken ?? '')),
			tenantId,
			String(credentials.baseUrl ?? '').trim(),
		]),
	);
}

/** Where a mint error keeps the Admin API's status, when it answered (mintStatusOf). */
const MINT_STATUS = 'mintStatus';

function mintError(message: string, transient: boolean, status?: number): UserError {
	const error = new UserError(message, { level: 'warning' });
	if (transient) Object.assign(error, { code: TOKEN_MINT_UNAVAILABLE });
	if (status !== undefined) Object.assign(error, { [MINT_STATUS]: status });
	return error;
}

/** The Admin API's HTTP status of a failed mint that got an answer (the item's error's httpCode). */
export function mintStatusOf(error: unknown): number | undefined {
	const status = (error as { [MINT_STATUS]?: unknown } | null)?.[MINT_STATUS];
	return typeof status === 'number' ? status : undefined;
}

function serverMessage(body: unknown): string | undefined {
	const message = (body as IDataObject | undefined)?.message;
	return typeof message === 'string' ? message : undefined;
}

/**
 * Mints one token for `tenantId`. Errors are built afresh (the HTTP client's error holds the admin
 * token in its request headers); a redirect is an error, never followed, so the admin token goes only
 * to the Admin Base URL.
 */
export async function mintTenantToken(
	send: MintSend,
	credentials: ICredentialDataDecryptedObject,
	tenantId: string,
	{
		abortSignal,
		redirectMessage = plainRedirectMessage,
		timeout = 30_000,
	}: {
		abortSignal?: AbortSignal;
		redirectMessage?: RedirectMessage;
		/** Milliseconds: the node's Options > Timeout, like its other requests. */
		timeout?: number;
	} = {},
): Promise<MintedToken> {
	if (!tenantId) {
		throw mintError(
			"No tenant to get a token for: fill in the Managed Tenant credential's Tenant ID.",
			false,
		);
	}
	const lifetime = tokenLifetime(credentials);
	const adminBaseUrl = withoutTrailingSlashes(String(credentials.adminBaseUrl ?? '').trim());
	const path = '/api/tenant/token';
	const url = `${adminBaseUrl}${path}`;
	const startedAt = Date.now();
	let response: MintAnswer;
	try {
		response = await send({
			adminBaseUrl,
			adminToken: String(credentials.adminToken ?? ''),
			path,
			// No revoke_previous: other runs may still hold a token minted earlier.
			body: { id: tenantId, expires_in: lifetime },
			timeout,
			...(abortSignal ? { abortSignal } : {}),
		});
	} catch (error) {
		if (abortSignal?.aborted) throw mintError('The execution was cancelled', false);
		const { code } = readThrownRequestError(error);
		throw mintError(
			`Could not reach the Admin API to get a tenant token${code ? ` (${code})` : ''}`,
			true,
		);
	}
	return mintedToken(response, { tenantId, url, redirectMessage, startedAt, lifetime });
}

/** The token in the Admin API's answer to a mint, or the mint's error. */
function mintedToken(
	response: MintAnswer,
	{
		tenantId,
		url,
		redirectMessage,
		startedAt,
		lifetime,
	}: {
		tenantId: string;
		url: string;
		redirectMessage: RedirectMessage;
		/** When the mint was sent: the token's lifetime counts from then where the answer has none. */
		startedAt: number;
		lifetime: number;
	},
): MintedToken {
	const status = response.statusCode;
	if (status >= 300 && status < 400) {
		throw mintError(
			`Could not get a tenant token: ${redirectMessage(url, status, response.headers ?? {})}`,
			false,
			status,
		);
	}
	if (status < 200 || status > 299) {
		const reason = serverMessage(response.body) ?? `HTTP ${status}`;
		throw mintError(
			`Could not get a token for tenant "${tenantId}" from the Admin API: ${reason} (HTTP ${status})`,
			status === 429 || status >= 500,
			status,
		);
	}
	const body = response.body as IDataObject | undefined;
	const token = body?.token;
	if (typeof token !== 'string' || !token) {
		throw mintError('The Admin API answered without a token', false);
	}
	// A token for another tenant than asked is never used.
	if (body?.tenant_id !== undefined && String(body.tenant_id) !== tenantId) {
		throw mintError(
			`The Admin API answered with a token for tenant "${String(body.tenant_id)}" when asked for "${tenantId}"; it was not used`,
			false,
		);
	}
	const expiresAt = Date.parse(String(body?.expires_at ?? ''));
	return {
		token,
		expiresAt: Number.isNaN(expiresAt) ? startedAt + lifetime * 1000 : expiresAt,
	};
}
