import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../context';
import { quotaExceeded, validationFailed, type FieldProblem } from '../errors/api-error';
import {
	testWebhookBody,
	testWebhookListResponses,
	testWebhookRemoveBody,
	testWebhookRemoveResponses,
	testWebhookResponses,
} from '../schemas/contact-form-test-webhooks';
import { headerProblems, webhookUrlProblem } from './settings';

/**
 * Extension: a test webhook gets a copy of each new contact-form submission for a while, beside the
 * configured webhook, which keeps receiving every submission. An n8n editor listening for a test
 * event registers its Test URL here instead of displacing the live workflow's URL in the settings.
 */
const contactFormTestWebhookRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, targets } = app.site;
	const testWebhooks = store.contactFormTestWebhooks;

	app.post(
		'/api/contact-form/test-webhooks',
		{
			onRequest: app.requireTenant,
			// The headers carry a secret: not stored for replay.
			config: { idempotency: false },
			schema: {
				operationId: 'createContactFormTestWebhook',
				summary:
					'Set (or renew) a test webhook: it gets a copy of each new submission until it expires, is removed, or the token that set it is revoked or expires',
				description:
					'At most --max-test-webhooks (10) per tenant at once: past it 413 quota_exceeded. Copies are sent once, at most --max-test-copies-in-flight (50) at a time server-wide; more are not sent. The settings (GET /api/settings) list them.',
				'x-extension': true,
				body: testWebhookBody,
				response: testWebhookResponses,
			},
		},
		async (request) => {
			const { url, headers, ttl_seconds: ttlSeconds = 600 } = request.body;
			const problems: FieldProblem[] = [];
			const problem = await webhookUrlProblem(targets, url);
			if (problem) problems.push({ field: 'url', problem });
			problems.push(...headerProblems(url, headers ?? null, 'headers'));
			if (problems.length > 0) throw validationFailed(problems);
			const { pk: tenantPk, tokenHash } = tenantOf(request);
			const { maxTestWebhooks } = app.site.config;
			if (testWebhooks.countLive(tenantPk, url) >= maxTestWebhooks)
				throw quotaExceeded(
					`A tenant may have at most ${maxTestWebhooks} test webhooks at once (server option --max-test-webhooks); remove one or let it expire.`,
				);
			return testWebhooks.put(tenantPk, url, headers ?? {}, ttlSeconds * 1000, tokenHash);
		},
	);

	app.get(
		'/api/contact-form/test-webhooks',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'listContactFormTestWebhooks',
				summary: 'The test webhooks that have not expired (without their headers)',
				'x-extension': true,
				response: testWebhookListResponses,
			},
		},
		async (request) => ({ data: testWebhooks.list(tenantOf(request).pk) }),
	);

	app.delete(
		'/api/contact-form/test-webhooks',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'deleteContactFormTestWebhook',
				summary: 'Remove a test webhook; copies stop at once',
				'x-extension': true,
				body: testWebhookRemoveBody,
				response: testWebhookRemoveResponses,
			},
		},
		async (request) => ({ removed: testWebhooks.remove(tenantOf(request).pk, request.body.url) }),
	);
};

export default contactFormTestWebhookRoutes;
