import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { unauthorized } from '../errors/api-error';
import { existingTenant } from './tenants';
import { tenantOf } from '../context';
import { formParams } from '../schemas/contact-form';
import { formBudgets, publicRateLimits } from './public-rate-limits';
import {
	claimBody,
	claimResponses,
	DELIVERY_SECRET_HEADER,
	deliverySecretHeaders,
	releaseResponses,
} from '../schemas/contact-form-claims';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Whether `presented` is the value the tenant's webhook headers give the secret header (compared in
 * constant time). Other headers of the setting are not secrets and open nothing.
 */
function isWebhookSecret(headers: Record<string, string> | null, presented: unknown): boolean {
	// Names are unique whatever their case (the settings refuse one given twice).
	const secret = Object.entries(headers ?? {}).find(
		([name]) => name.toLowerCase() === DELIVERY_SECRET_HEADER.toLowerCase(),
	)?.[1];
	if (typeof presented !== 'string' || presented === '' || secret === undefined) return false;
	return timingSafeEqual(digest(secret), digest(presented));
}

/**
 * Extension: receivers of contact-form deliveries claim each submission here before starting work,
 * so a delivery that arrives twice (delivery is at least once) starts the work once, even when
 * several receiver processes share the load.
 */
const contactFormClaimRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const claims = app.site.store.contactFormClaims;
	// The form's limiter and budgets, but per address never below the per-tenant one: a receiver (one
	// n8n, one address) claims each delivery of every tenant it serves, and one tenant's deliveries
	// alone may come at the form's per-tenant rate.
	const form = formBudgets(app);
	const claimBudgets = {
		perAddress: form.perAddress > 0 ? Math.max(form.perAddress, form.perTenant) : 0,
		perTenant: form.perTenant,
	};

	app.post(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'createContactFormClaim',
				summary:
					'Claim a submission for a consumer: 201 for the first claim, 200 with claimed false for any later one',
				'x-extension': true,
				body: claimBody,
				response: claimResponses,
			},
		},
		async (request, reply) => {
			const result = claims.claim(tenantOf(request).pk, request.body.consumer, request.body.key);
			return reply.code(result.claimed ? 201 : 200).send(result);
		},
	);

	// The receiver of a delivery claims with the secret that delivery carried: no token needed, so a
	// receiver (n8n's Contact Form Trigger) claims without reading its credential per delivery.
	app.post(
		'/forms/:tenantId/claims',
		{
			// Public: a wrong secret counts against the budgets too (429 past them).
			onRequest: publicRateLimits(app, claimBudgets),
			schema: {
				operationId: 'submitContactFormClaim',
				summary:
					"Claim a submission with the webhook's secret: 201 for the first claim, 200 with claimed false for any later one",
				description: `Authenticated by the ${DELIVERY_SECRET_HEADER} header: the value the tenant's contact_form_webhook_headers give that header, which each delivery carries. Same claims as POST /api/contact-form/claims. Rate-limited like the public form (per client address and per tenant, 429 rate_limited with Retry-After), with budgets of its own: per tenant the form's, per address the larger of the form's two.`,
				'x-extension': true,
				params: formParams,
				headers: deliverySecretHeaders,
				body: claimBody,
				response: claimResponses,
			},
		},
		async (request, reply) => {
			const tenant = existingTenant(app.site.store.tenants, request.params.tenantId);
			const settings = app.site.store.settings.get(tenant.pk);
			if (
				!isWebhookSecret(
					settings.contact_form_webhook_headers,
					request.headers[DELIVERY_SECRET_HEADER.toLowerCase()],
				)
			) {
				throw unauthorized('The webhook secret is missing or wrong.');
			}
			const result = claims.claim(tenant.pk, request.body.consumer, request.body.key);
			return reply.code(result.claimed ? 201 : 200).send(result);
		},
	);

	app.delete(
		'/api/contact-form/claims',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'deleteContactFormClaim',
				summary: 'Give a claim up, so the next delivery of the submission is claimed afresh',
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
