import type { FastifyInstance } from 'fastify';
import { tenantOf } from '../context';
import { createContactFormClaimRepository } from '../db/contact-form-claims';
import { errorResponses, tenantSecurity } from '../schemas/common';

const claimBody = {
	type: 'object',
	required: ['consumer', 'key'],
	additionalProperties: false,
	properties: {
		consumer: { type: 'string', minLength: 1, maxLength: 200, description: 'who consumes the submissions, e.g. an n8n workflow and node' },
		key: { type: 'string', minLength: 1, maxLength: 300, description: 'what is claimed, e.g. a submission_id as JSON text' },
	},
} as const;

interface ClaimBody {
	consumer: string;
	key: string;
}

/**
 * Extension: receivers of contact-form deliveries claim each submission here before starting work,
 * so a delivery that arrives twice (delivery is at least once) starts the work once, even when
 * several receiver processes share the load.
 */
export default async function contactFormClaimRoutes(app: FastifyInstance) {
	const claims = createContactFormClaimRepository(app.site.store.db);

	app.post<{ Body: ClaimBody }>(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Claim a submission for a consumer: 201 for the first claim, 200 with claimed false for any later one',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				body: claimBody,
				response: {
					200: claimAnswer(false),
					201: claimAnswer(true),
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request, reply) => {
			const { consumer, key } = request.body;
			const result = claims.claim(tenantOf(request).pk, consumer, key);
			return reply.code(result.claimed ? 201 : 200).send(result);
		},
	);

	app.delete<{ Body: ClaimBody }>(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Give a claim up, so the next delivery of the submission is claimed afresh',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				body: claimBody,
				response: {
					200: { type: 'object', required: ['released'], properties: { released: { type: 'boolean' } } },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request) => {
			const { consumer, key } = request.body;
			return { released: claims.release(tenantOf(request).pk, consumer, key) };
		},
	);
}

function claimAnswer(claimed: boolean) {
	return {
		type: 'object',
		required: ['claimed', 'claimed_at'],
		properties: {
			claimed: { type: 'boolean', const: claimed },
			claimed_at: { type: 'string', format: 'date-time', description: 'when the claim that holds the key was made' },
		},
	};
}
