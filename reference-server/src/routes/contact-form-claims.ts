import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../context';
import { tenantSecurity } from '../schemas/common';
import { claimBody, claimResponses, releaseResponses } from '../schemas/contact-form-claims';

/**
 * Extension: receivers of contact-form deliveries claim each submission here before starting work,
 * so a delivery that arrives twice (delivery is at least once) starts the work once, even when
 * several receiver processes share the load.
 */
const contactFormClaimRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const claims = app.site.store.contactFormClaims;

	app.post(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				summary:
					'Claim a submission for a consumer: 201 for the first claim, 200 with claimed false for any later one',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				body: claimBody,
				response: claimResponses,
			},
		},
		async (request, reply) => {
			const { consumer, key } = request.body;
			const result = claims.claim(tenantOf(request).pk, consumer, key);
			return reply.code(result.claimed ? 201 : 200).send(result);
		},
	);

	app.delete(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Give a claim up, so the next delivery of the submission is claimed afresh',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				body: claimBody,
				response: releaseResponses,
			},
		},
		async (request) => {
			const { consumer, key } = request.body;
			return { released: claims.release(tenantOf(request).pk, consumer, key) };
		},
	);
};

export default contactFormClaimRoutes;
