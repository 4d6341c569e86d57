/**
 * How a request proves who sends it: the only code in the nodes that calls n8n's HTTP helpers. The
 * sender (transport.ts) picks one strategy per request and sends every attempt through it.
 *
 * - credentialAuth: n8n adds the Tenant Token or Admin credential's token (the data read for the item).
 * - managedAuth: the run's token for the item's tenant (managedTenant.ts), replaced once when refused;
 *   the token is minted through the sender too, with bearerAuth.
 * - bearerAuth: the Managed Tenant credential's admin token (the tenant list, the token mint).
 * - headerAuth: a delivery secret in a header (the Contact Form Trigger's claims).
 */
import type { IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import type { CancelSignal } from './cancel';
import { managedTenantToken } from './managedTenant';
import type { RequestTarget, SiteRequestContext } from './target';
import type { MintSend } from './tokenMint';

/** How one call reaches the service. */
export interface SiteAuth {
	/** Sends one attempt with the strategy's proof. */
	send(options: IHttpRequestOptions): Promise<IN8nHttpFullResponse>;
	/** After a 401: gets a fresh proof for one more attempt; false when there is none to get. */
	renew(): Promise<boolean>;
}

const noRenewal = async () => false;

/** A request exactly as given, through n8n's plain helper. */
async function plainRequest(
	ctx: SiteRequestContext,
	options: IHttpRequestOptions,
): Promise<IN8nHttpFullResponse> {
	return (await ctx.helpers.httpRequest(options)) as IN8nHttpFullResponse;
}

/** n8n's authentication of the target's credential (Tenant Token, Admin), as resolved for the item. */
function credentialAuth(ctx: SiteRequestContext, target: RequestTarget): SiteAuth {
	const reference = ctx.getNode().credentials?.[target.credentialType];
	return {
		send: async (options) =>
			(await ctx.helpers.httpRequestWithAuthentication.call(ctx, target.credentialType, options, {
				credentialsDecrypted: {
					id: reference?.id ?? '',
					name: reference?.name ?? '',
					type: target.credentialType,
					data: target.credentials,
				},
			})) as IN8nHttpFullResponse,
		renew: noRenewal,
	};
}

/** A fixed header on every attempt. */
export function headerAuth(ctx: SiteRequestContext, name: string, value: string): SiteAuth {
	return {
		send: async (options) =>
			await plainRequest(ctx, { ...options, headers: { ...options.headers, [name]: value } }),
		renew: noRenewal,
	};
}

/** A bearer token on every attempt. */
export function bearerAuth(ctx: SiteRequestContext, token: string): SiteAuth {
	return headerAuth(ctx, 'Authorization', `Bearer ${token}`);
}

/** The run's token for the target's tenant, minted through `mint`; a refused token is replaced once. */
function managedAuth(
	ctx: SiteRequestContext,
	target: RequestTarget & { tenantId: string },
	signal: CancelSignal | undefined,
	mint: MintSend,
): SiteAuth {
	let current: string | undefined;
	let renewed = false;
	// The token request keeps to Options > Timeout too.
	const token = async (rejected?: string) =>
		await managedTenantToken(ctx, {
			credentials: target.credentials,
			tenantId: target.tenantId,
			send: mint,
			abortSignal: signal,
			rejected,
			timeout: target.timeout,
		});
	return {
		send: async (options) => await bearerAuth(ctx, (current ??= await token())).send(options),
		renew: async () => {
			if (renewed || current === undefined) return false;
			renewed = true;
			current = await token(current);
			return true;
		},
	};
}

/**
 * The strategy of a target: the managed token for a Managed Tenant (minted through `mint`, the
 * sender's: transport.ts), else n8n's credential.
 */
export function targetAuth(
	ctx: SiteRequestContext,
	target: RequestTarget,
	signal: CancelSignal | undefined,
	mint: MintSend,
): SiteAuth {
	const { tenantId } = target;
	return tenantId !== undefined
		? managedAuth(ctx, { ...target, tenantId }, signal, mint)
		: credentialAuth(ctx, target);
}
