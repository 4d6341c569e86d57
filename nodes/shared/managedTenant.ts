/**
 * Tenant tokens a node run mints with a Managed Tenant credential: one per tenant scope (tenant,
 * both base URLs, admin token; credentials/tenantTokenMint.ts), shared by every request of the run
 * that resolves to that scope, at any concurrency.
 *
 * Kept per run: the WeakMap's key is the run's context object (an execute, poll, hook, webhook or
 * list-search context), so the tokens go with it. Nothing is kept between runs, nothing is stored in
 * n8n's credential, and a token is only ever looked up by the scope it was minted for: an item whose
 * credential resolves to another tenant or host (a per-item expression, an edit) gets its own.
 */
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import type { MintedToken } from '../../credentials/tenantTokenMint';
import { mintTenantToken, tokenScope } from '../../credentials/tenantTokenMint';
import { redirectMessage } from './redirect';
import type { SiteRequestContext } from './transport';

/** A token is not used for a request that may outlive it by less than this. */
const EXPIRY_MARGIN_MS = 30_000;

const runTokens = new WeakMap<object, Map<string, Promise<MintedToken>>>();

function tokensOf(ctx: SiteRequestContext): Map<string, Promise<MintedToken>> {
	let tokens = runTokens.get(ctx);
	if (!tokens) {
		tokens = new Map();
		runTokens.set(ctx, tokens);
	}
	return tokens;
}

/**
 * The run's token for `tenantId` with these credentials: the one minted already while it is valid
 * and not `rejected` (the token the service just refused), else a new mint that every request of the
 * run waiting on the same scope shares.
 */
export async function managedTenantToken(
	ctx: SiteRequestContext,
	credentials: ICredentialDataDecryptedObject,
	tenantId: string,
	abortSignal?: IHttpRequestOptions['abortSignal'],
	rejected?: string,
): Promise<string> {
	const tokens = tokensOf(ctx);
	const scope = tokenScope(credentials, tenantId);
	for (;;) {
		const current = tokens.get(scope);
		if (current === undefined) break;
		// A shared mint that failed fails every request waiting on it: each goes through the
		// transport's backoff and retries, instead of all minting again at once.
		const minted = await current;
		// Another request replaced it while this one waited: look again.
		if (tokens.get(scope) !== current) continue;
		if (minted.token !== rejected && minted.expiresAt - EXPIRY_MARGIN_MS > Date.now()) {
			return minted.token;
		}
		break;
	}
	const mint = mintTenantToken(
		async (options) => await ctx.helpers.httpRequest(options),
		credentials,
		tenantId,
		{ abortSignal, redirectMessage },
	);
	tokens.set(scope, mint);
	// A failed mint is not kept: the next request (a retry) mints again.
	mint.catch(() => {
		if (tokens.get(scope) === mint) tokens.delete(scope);
	});
	return (await mint).token;
}
