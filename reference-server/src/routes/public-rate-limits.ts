import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { clientAddressKey } from './client-address';

/**
 * Rate limits of a public route under /forms/:tenantId (no token: the form, the claims), per client
 * address, then per tenant, each off when 0 (--form-rate-per-address, --form-rate-per-tenant). Each
 * call counts apart: a route's budget is its own, so claims never eat into the form's.
 */
export function publicRateLimits(app: FastifyInstance): onRequestHookHandler[] {
	const { formRatePerAddress, formRatePerTenant } = app.site.config;
	const limits: onRequestHookHandler[] = [];
	if (formRatePerAddress > 0) {
		limits.push(
			app.rateLimit({
				max: formRatePerAddress,
				timeWindow: 60_000,
				// request.ip is the peer, or with --trust-proxy the client a trusted proxy names.
				keyGenerator: (request) => `address:${clientAddressKey(request.ip)}`,
			}),
		);
	}
	if (formRatePerTenant > 0) {
		limits.push(
			app.rateLimit({
				max: formRatePerTenant,
				timeWindow: 60_000,
				keyGenerator: (request) => `tenant:${(request.params as { tenantId: string }).tenantId}`,
			}),
		);
	}
	return limits;
}
