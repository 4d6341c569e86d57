import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { ApiError, notFound } from '../errors/api-error';
import { DELIVERY_MARK_HEADER } from '../delivery/worker';
import type { DeliveryState } from '../db/contact-form';
import { tenantOf } from '../context';
import { errorResponses, paginationMeta, paginationMetaFor, paginationQueryProperties, tenantIdSchema, tenantSecurity } from '../schemas/common';

const DELIVERY_STATES = ['pending', 'delivered', 'failed'];

const deliverySchema = {
	type: 'object',
	required: ['id', 'submission_id', 'state', 'attempts', 'last_status', 'last_error', 'next_attempt_at', 'delivered_at', 'created_at', 'updated_at'],
	properties: {
		id: { type: 'string' },
		submission_id: { type: 'string' },
		state: { type: 'string', enum: DELIVERY_STATES },
		attempts: { type: 'integer' },
		last_status: { type: ['integer', 'null'], description: 'HTTP status of the last attempt; null for a network error or none yet' },
		last_error: { type: ['string', 'null'] },
		next_attempt_at: { type: ['string', 'null'], format: 'date-time', description: 'null once delivered or failed' },
		delivered_at: { type: ['string', 'null'], format: 'date-time' },
		created_at: { type: 'string', format: 'date-time' },
		updated_at: { type: 'string', format: 'date-time' },
	},
} as const;

/** Rate limits of the public form: per client address, then per tenant (each off when 0). */
function formRateLimits(app: FastifyInstance): onRequestHookHandler[] {
	const { formRatePerAddress, formRatePerTenant } = app.site.config;
	const limits: onRequestHookHandler[] = [];
	if (formRatePerAddress > 0) {
		limits.push(app.rateLimit({ max: formRatePerAddress, timeWindow: 60_000, keyGenerator: (request) => `address:${request.ip}` }));
	}
	if (formRatePerTenant > 0) {
		limits.push(
			app.rateLimit({ max: formRatePerTenant, timeWindow: 60_000, keyGenerator: (request) => `tenant:${(request.params as { tenantId: string }).tenantId}` }),
		);
	}
	return limits;
}

export default async function contactFormRoutes(app: FastifyInstance) {
	const { store, worker, config } = app.site;

	app.post<{ Params: { tenantId: string }; Body: Record<string, unknown> }>(
		'/forms/:tenantId/contact',
		{
			// Public and unauthenticated: a small body, a bounded shape and a rate, all before anything is stored.
			bodyLimit: Math.max(1, Math.floor(config.formMaxBodyKb * 1024)),
			onRequest: formRateLimits(app),
			schema: {
				summary: 'Submit a contact form (public, no token)',
				description:
					'Stored first, then delivered at least once to the tenant\'s contact_form_webhook_url as {submission_id, tenant_id, form: "contact", submitted_at, fields} with the configured headers and X-Site-Delivery-Id. Without a webhook URL the submission is stored and no delivery is created. A request carrying X-Site-Delivery-Id (a delivery relayed back) is refused with 403.',
				tags: ['public'],
				'x-extension': true,
				params: { type: 'object', required: ['tenantId'], properties: { tenantId: { type: 'string', maxLength: 63 } } },
				body: {
					type: 'object',
					maxProperties: config.formMaxFields,
					propertyNames: { maxLength: 200 },
					// Any JSON value; the length bound applies to text.
					additionalProperties: { type: ['string', 'number', 'boolean', 'null', 'object', 'array'], maxLength: config.formMaxFieldLength },
					description: `the form fields: at most ${config.formMaxFields}, names of at most 200 characters, text values of at most ${config.formMaxFieldLength} characters; the body at most ${config.formMaxBodyKb} KB (413 above); rate limited per client address and per tenant (429 with Retry-After)`,
				},
				response: {
					202: { type: 'object', required: ['submission_id'], properties: { submission_id: { type: 'string', format: 'uuid' } } },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request, reply) => {
			const { tenantId } = request.params;
			// A delivery (of any tenant) relayed back into a form would deliver again, forever.
			if (request.headers[DELIVERY_MARK_HEADER] !== undefined) {
				throw new ApiError(403, 'forbidden', 'A contact-form delivery cannot be submitted as a new submission (a delivery loop).');
			}
			const tenant = new RegExp(tenantIdSchema.pattern).test(tenantId) ? store.tenants.findById(tenantId) : undefined;
			if (!tenant) throw notFound(`Tenant "${tenantId}" not found.`);
			const { submissionId, deliveryId } = store.contactForm.submit(tenant.pk, 'contact', request.body);
			if (deliveryId) worker.notify();
			return reply.code(202).send({ submission_id: submissionId });
		},
	);

	app.get<{ Querystring: { page: number; per_page: number; state?: DeliveryState } }>(
		'/api/contact-form/deliveries',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Contact-form webhook deliveries, newest first',
				tags: ['tenant'],
				security: tenantSecurity,
				'x-extension': true,
				querystring: {
					type: 'object',
					properties: { ...paginationQueryProperties, state: { type: 'string', enum: DELIVERY_STATES } },
				},
				response: {
					200: {
						type: 'object',
						required: ['data', 'meta'],
						properties: { data: { type: 'array', items: deliverySchema }, meta: paginationMeta },
					},
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request) => {
			const { page, per_page: perPage, state } = request.query;
			const { deliveries, total } = store.contactForm.list(tenantOf(request).pk, state, perPage, (page - 1) * perPage);
			return { data: deliveries, meta: paginationMetaFor(page, perPage, total) };
		},
	);
}
