import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isoIn } from '../clock';
import { sha256Hex } from '../plugins/auth';
import { asBoolean } from '../schemas/common';
import { issueTokenBody, issueTokenResponses } from '../schemas/tokens';
import { existingTenant } from './central';

/** Recognisable in secret scanners and logs; the 32 random bytes after it are the secret. */
const TENANT_TOKEN_PREFIX = 'stt_';

const tokenRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store } = app.site;

	app.post(
		'/api/tenant/token',
		{
			onRequest: app.requireAdmin,
			// A replay would need the token stored in plain text; retries issue a fresh token instead.
			config: { idempotency: false },
			schema: {
				operationId: 'createTenantToken',
				summary: 'Issue a tenant token (shown once; stored only as a SHA-256 hash)',
				description: 'Rotation: issue a new token with revoke_previous: true.',
				body: issueTokenBody,
				response: issueTokenResponses,
			},
		},
		async (request) => {
			const { id, expires_in: expiresIn } = request.body;
			const tenant = existingTenant(store.tenants, id);
			const token = TENANT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
			const expiresAt = expiresIn === undefined ? null : isoIn(expiresIn * 1000);
			store.tokens.issue(
				tenant.pk,
				sha256Hex(token),
				expiresAt,
				asBoolean(request.body.revoke_previous, false),
			);
			return { token, token_type: 'Bearer', tenant_id: tenant.id, expires_at: expiresAt };
		},
	);
};

export default tokenRoutes;
