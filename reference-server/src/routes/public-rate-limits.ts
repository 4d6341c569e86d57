import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { clientAddressKey } from './client-address';

/** Requests a minute per client address and per tenant; 0 turns one off. */
export interface PublicBudgets {
	perAddress: number;
	perTenant: number;
}

/** The public form's budgets: --form-rate-per-address and --form-rate-per-tenant. */
export function formBudgets(app: FastifyInstance): PublicBudgets {
	const { formRatePerAddress, formRatePerTenant } = app.site.config;
	return { perAddress: formRatePerAddress, perTenant: formRatePerTenant };
}

/**
 * Rate limits of a public route under /forms/:tenantId (no token: the form, the claims), per client
 * address, then per tenant: 429 rate_limited with Retry-After past them. Each call counts apart: a
 * route's budget is its own, so claims never eat into the form's.
 */
export function publicRateLimits(
	app: FastifyInstance,
	{ perAddress, perTenant }: PublicBudgets,
): onRequestHookHandler[] {
	const limits: onRequestHookHandler[] = [];
	if (perAddress > 0) {
		limits.push(
			app.rateLimit({
				max: perAddress,
				timeWindow: 60_000,
				// request.ip is the peer, or with --trust-proxy the client a trusted proxy names.
				keyGenerator: (request) => `address:${clientAddressKey(request.ip)}`,
			}),
		);
	}
	if (perTenant > 0) {
		limits.push(
			app.rateLimit({
				max: perTenant,
				timeWindow: 60_000,
				keyGenerator: (request) => `tenant:${(request.params as { tenantId: string }).tenantId}`,
			}),
		);
	}
	return limits;
}
