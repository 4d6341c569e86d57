import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unauthorized, forbidden } from '../errors/api-error';
import type { TenantCaller } from '../context';

export function sha256Hex(value: string): string {
	return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** The token from `Authorization: Bearer <token>`, or undefined. Never logged, never echoed. */
function bearerToken(request: FastifyRequest): string | undefined {
	const header = request.headers.authorization;
	if (typeof header !== 'string') return undefined;
	const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
	return match ? match[1] : undefined;
}

const missingToken = () =>
	unauthorized('A bearer token is required (Authorization: Bearer <token>).');
const invalidToken = () => unauthorized('The bearer token is unknown, revoked or expired.');

/**
 * `requireAdmin` and `requireTenant` are onRequest hooks for routes. The two token kinds are separate:
 * a valid token of the other kind is a 403, anything else that is not valid a 401.
 */
export default fp(
	async function authPlugin(app: FastifyInstance) {
		// Comparing digests keeps the comparison constant-time regardless of the token lengths.
		const adminDigest = createHash('sha256').update(app.site.config.adminToken, 'utf8').digest();
		const isAdminToken = (token: string) =>
			timingSafeEqual(createHash('sha256').update(token, 'utf8').digest(), adminDigest);

		/** The tenant a token belongs to, if it is a live tenant token. */
		function tenantFor(token: string): TenantCaller | undefined {
			const tokenHash = sha256Hex(token);
			const found = app.site.store.tokens.findByHash(tokenHash);
			if (!found || found.revoked_at !== null) return undefined;
			// Issued for another name: the tenant was renamed since, and the token stays with the name.
			if (found.issued_for !== null && found.issued_for !== found.tenant_id) return undefined;
			if (found.expires_at !== null && found.expires_at <= new Date().toISOString())
				return undefined;
			return { kind: 'tenant', pk: found.tenant_pk, id: found.tenant_id, tokenHash };
		}

		app.decorateRequest('caller', null);

		app.decorate('requireAdmin', async function requireAdmin(request: FastifyRequest) {
			const token = bearerToken(request);
			if (token === undefined) throw missingToken();
			if (isAdminToken(token)) {
				request.caller = { kind: 'admin' };
				return;
			}
			if (tenantFor(token))
				throw forbidden('This endpoint needs the admin token; a tenant token was given.');
			throw invalidToken();
		});

		app.decorate('requireTenant', async function requireTenant(request: FastifyRequest) {
			const token = bearerToken(request);
			if (token === undefined) throw missingToken();
			const caller = tenantFor(token);
			if (caller) {
				request.caller = caller;
				return;
			}
			if (isAdminToken(token))
				throw forbidden('This endpoint needs a tenant token; the admin token was given.');
			throw invalidToken();
		});
	},
	{ name: 'site-auth', dependencies: ['site-errors'] },
);
