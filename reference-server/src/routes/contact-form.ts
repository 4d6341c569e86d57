import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { forbidden } from '../errors/api-error';
import { existingTenant } from './tenants';
import { DELIVERY_MARK_HEADER } from '../delivery/post';
import { formBudgets, publicRateLimits } from './public-rate-limits';
import { tenantOf } from '../context';
import { pagination, paginationMetaFor } from '../schemas/common';
import {
	deliveriesQuery,
	deliveriesResponses,
	formBody,
	formParams,
	formResponses,
} from '../schemas/contact-form';

const contactFormRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, worker, config, testCopies } = app.site;

	app.post(
		'/forms/:tenantId/contact',
		{
			// Public and unauthenticated: a small body, a bounded shape and a rate, all before anything is stored.
			bodyLimit: Math.max(1, Math.floor(config.formMaxBodyKb * 1024)),
			onRequest: publicRateLimits(app, formBudgets(app)),
			schema: {
				operationId: 'submitContactForm',
				summary: 'Submit a contact form (public, no token)',
				description:
					'Stored first, then delivered at least once to the tenant\'s contact_form_webhook_url as {submission_id, tenant_id, form: "contact", submitted_at, fields} with the configured headers and X-Site-Delivery-Id. Without a webhook URL the submission is answered 202 and not stored (nothing could ever deliver or list it). Each test webhook (POST /api/contact-form/test-webhooks) gets a copy, once, beside the delivery. Submissions and their finished deliveries are deleted after --retention-days (default 30). A request carrying X-Site-Delivery-Id (a delivery relayed back) is refused with 403.',
				'x-extension': true,
				params: formParams,
				body: formBody(config),
				response: formResponses,
			},
		},
		async (request, reply) => {
			const { tenantId } = request.params;
			// A delivery (of any tenant) relayed back into a form would deliver again, forever.
			if (request.headers[DELIVERY_MARK_HEADER] !== undefined) {
				throw forbidden(
					'A contact-form delivery cannot be submitted as a new submission (a delivery loop).',
				);
			}
			const tenant = existingTenant(store.tenants, tenantId);
			const { submissionId, submittedAt, deliveryId } = store.contactForm.submit(
				tenant.pk,
				'contact',
				request.body,
			);
			if (deliveryId) worker.notify();
			// Test webhooks left from a run with extensions get nothing with --no-extensions.
			const testTargets = config.extensions ? store.contactFormTestWebhooks.targets(tenant.pk) : [];
			if (testTargets.length > 0)
				testCopies.send(testTargets, {
					submission_id: submissionId,
					tenant_id: tenant.id,
					form: 'contact',
					submitted_at: submittedAt,
					fields: request.body,
				});
			return reply.code(202).send({ submission_id: submissionId });
		},
	);

	// Extension routes only from here: none with --no-extensions (plugins/extensions.ts).
	if (!app.site.config.extensions) return;

	app.get(
		'/api/contact-form/deliveries',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'listContactFormDeliveries',
				summary: 'Contact-form webhook deliveries, newest first',
				'x-extension': true,
				querystring: deliveriesQuery,
				response: deliveriesResponses,
			},
		},
		async (request) => {
			const { page, perPage, offset } = pagination(request.query);
			const { deliveries, total } = store.contactForm.list(
				tenantOf(request).pk,
				request.query.state,
				perPage,
				offset,
			);
			return { data: deliveries, meta: paginationMetaFor(page, perPage, total) };
		},
	);
};

export default contactFormRoutes;
