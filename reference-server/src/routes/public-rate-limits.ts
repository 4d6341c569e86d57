import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import ipaddr from 'ipaddr.js';

import { ApiError } from '../errors/api-error';

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
 * The rate-limit key of a client address. One IPv6 host is usually given a whole /64, so counting
 * each of its addresses apart would give it 2^64 budgets: IPv6 addresses are grouped by their /64.
 * IPv4 (also IPv4-mapped IPv6) counts per address.
 */
function clientAddressKey(ip: string): string {
	if (!ipaddr.isValid(ip)) return ip;
	const address = ipaddr.process(ip);
	if (address.kind() === 'ipv4') return address.toString();
	const groups = (address as ipaddr.IPv6).parts.slice(0, 4);
	return `${new ipaddr.IPv6([...groups, 0, 0, 0, 0]).toString()}/64`;
}

/** The answer past a budget, as the rate limiter's own (app.ts registers the same for its routes). */
function rateLimited(
	reply: FastifyReply,
	{ max, ttlInSeconds }: { max: number; ttlInSeconds: number },
) {
	const seconds = Math.max(1, ttlInSeconds);
	reply.header('retry-after', seconds);
	reply.header('x-ratelimit-limit', max);
	reply.header('x-ratelimit-remaining', 0);
	reply.header('x-ratelimit-reset', seconds);
	return new ApiError(429, 'rate_limited', `Too many requests; retry in ${seconds} s.`);
}

/**
 * Rate limits of a public route under /forms/:tenantId (no token: the form, the claims), per client
 * address and per tenant, each applied on its own: 429 rate_limited with Retry-After past either.
 * (Two of the limiter's own hooks on one route would not do: the first marks the request as limited
 * and the second then lets it through unchecked.) Each call counts apart: a route's budget is its
 * own, so claims never eat into the form's.
 */
export function publicRateLimits(
	app: FastifyInstance,
	{ perAddress, perTenant }: PublicBudgets,
): onRequestHookHandler[] {
	const budgets: Array<[number, (request: FastifyRequest) => string]> = [
		// request.ip is the peer, or with --trust-proxy the client a trusted proxy names.
		[perAddress, (request) => `address:${clientAddressKey(request.ip)}`],
		[perTenant, (request) => `tenant:${(request.params as { tenantId: string }).tenantId}`],
	];
	const limiters = budgets
		.filter(([max]) => max > 0)
		.map(([max, keyGenerator]) => app.createRateLimit({ max, timeWindow: 60_000, keyGenerator }));
	if (limiters.length === 0) return [];
	return [
		async (request, reply) => {
			for (const limiter of limiters) {
				const budget = await limiter(request);
				if (!budget.isAllowed && budget.isExceeded) throw rateLimited(reply, budget);
			}
		},
	];
}
