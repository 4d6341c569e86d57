/**
 * Tenant tokens a node run mints with a Managed Tenant credential: one per tenant scope (tenant,
 * both base URLs, admin token; tokenMint.ts), shared by every request of the run
 * that resolves to that scope, at any concurrency.
 *
 * Kept per execution: the WeakMap's key is n8n's flow context of the execution (`getContext('flow')`,
 * one object shared by the execution's nodes), or, where a context has none (a trigger's poll, hook or
 * webhook), the context itself; the tokens go with it. The editor's list searches (a new context per
 * keystroke) share one map instead, each token reused for EDITOR_REUSE_MS at most. Nothing is stored in
 * n8n's credential (n8n 1.x would store the credential's fields as resolved for one item, replacing
 * their expressions), and a token is only ever looked up by the scope it was minted for: an item
 * whose credential resolves to another tenant or host (a per-item expression, an edit) gets its own.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { MintedToken, MintSend } from './tokenMint';
import { mintTenantToken, tokenScope } from './tokenMint';
import { redirectMessage } from './redirect';
import type { SiteRequestContext } from './target';

/** A token is not used for a request that may outlive it by less than this. */
const EXPIRY_MARGIN_MS = 30_000;

/** How long the editor's list searches reuse one token (per credential scope). */
const EDITOR_REUSE_MS = 5 * 60_000;
/** The most scopes the editor's map holds; beyond, it starts afresh. */
const EDITOR_SCOPES = 100;

const runTokens = new WeakMap<object, Map<string, Promise<MintedToken>>>();
const editorTokens = new Map<string, Promise<MintedToken>>();

const isListSearch = (ctx: SiteRequestContext) =>
	'getCurrentNodeParameter' in ctx && !('getInputData' in ctx);

/** What lives as long as the run's execution (see above). */
function runOf(ctx: SiteRequestContext): object {
	const withFlow = ctx as { getContext?: (type: 'flow') => object };
	if (typeof withFlow.getContext === 'function') {
		try {
			return withFlow.getContext('flow');
		} catch {
			// No execution data to hold a flow context: the context alone.
		}
	}
	return ctx;
}

function tokensOf(ctx: SiteRequestContext): Map<string, Promise<MintedToken>> {
	if (isListSearch(ctx)) {
		if (editorTokens.size >= EDITOR_SCOPES) editorTokens.clear();
		return editorTokens;
	}
	const run = runOf(ctx);
	let tokens = runTokens.get(run);
	if (!tokens) {
		tokens = new Map();
		runTokens.set(run, tokens);
	}
	return tokens;
}

/** What a mint needs besides the context. */
export interface TokenRequest {
	credentials: ICredentialDataDecryptedObject;
	tenantId: string;
	/** Sends the mint's request (the nodes' sender: transport.ts). */
	send: MintSend;
	abortSignal?: AbortSignal;
	/** The token the service just refused: never handed out again. */
	rejected?: string;
	/** Milliseconds: the node's Options > Timeout, like its other requests. */
	timeout?: number;
}

/**
 * The run's token for `tenantId` with these credentials: the one minted already while it is valid
 * and not `rejected` (the token the service just refused), else a new mint that every request of the
 * run waiting on the same scope shares.
 */
export async function managedTenantToken(
	ctx: SiteRequestContext,
	{ credentials, tenantId, send, abortSignal, rejected, timeout }: TokenRequest,
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
	const minted = mintTenantToken(send, credentials, tenantId, {
		abortSignal,
		redirectMessage,
		timeout,
	});
	const mint = isListSearch(ctx)
		? minted.then((token) => ({
				...token,
				expiresAt: Math.min(token.expiresAt, Date.now() + EDITOR_REUSE_MS),
			}))
		: minted;
	tokens.set(scope, mint);
	// A failed mint is not kept: the next request (a retry) mints again.
	mint.catch(() => {
		if (tokens.get(scope) === mint) tokens.delete(scope);
	});
	return (await mint).token;
}
