import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { isoIn } from '../clock';
import { sha256Hex } from '../plugins/auth';
import { asBoolean, errorResponses, flagSchema, tenantIdSchema } from '../schemas/common';
import { centralSchema, existingTenant } from './central';

interface IssueBody {
	id: string;
	expires_in?: number;
	revoke_previous?: boolean | 0 | 1;
}

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 60 * 60;
/** Recognisable in secret scanners and logs; the 32 random bytes after it are the secret. */
const TENANT_TOKEN_PREFIX = 'stt_';

export default async function tokenRoutes(app: FastifyInstance) {
	const { store } = app.site;

	app.post<{ Body: IssueBody }>(
		'/api/tenant/token',
		{
			onRequest: app.requireAdmin,
			// A replay would need the token stored in plain text; retries issue a fresh token instead.
			config: { idempotency: false },
			schema: centralSchema(
				{
					summary: 'Issue a tenant token (shown once; stored only as a SHA-256 hash)',
					description: 'Rotation: issue a new token with revoke_previous: true.',
				},
				{
					id: tenantIdSchema,
					expires_in: {
						type: 'integer',
						minimum: 1,
						maximum: TEN_YEARS_SECONDS,
						description: 'lifetime in seconds; absent = no expiry',
						'x-extension': true,
					},
					revoke_previous: { ...flagSchema, description: 'revoke every earlier token of the tenant', 'x-extension': true },
				},
				{
					200: {
						type: 'object',
						required: ['token', 'token_type', 'tenant_id', 'expires_at'],
						properties: {
							token: { type: 'string' },
							token_type: { type: 'string', enum: ['Bearer'] },
							tenant_id: { type: 'string' },
							expires_at: { type: ['string', 'null'], format: 'date-time' },
						},
					},
					...errorResponses,
				},
			),
		},
		async (request) => {
			const { id, expires_in: expiresIn } = request.body;
			const tenant = existingTenant(store.tenants, id);
			const token = TENANT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
			const expiresAt = expiresIn === undefined ? null : isoIn(expiresIn * 1000);
			store.tokens.issue(tenant.pk, sha256Hex(token), expiresAt, asBoolean(request.body.revoke_previous, false));
			return { token, token_type: 'Bearer', tenant_id: tenant.id, expires_at: expiresAt };
		},
	);
}
