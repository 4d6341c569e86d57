import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
	interface FastifySchema {
		/** Beyond service-api.md: kept in the OpenAPI document, ignored by validation. */
		'x-extension'?: boolean;
		/** Left open by service-api.md and decided by docs/api-contract.md. */
		'x-contract-decided'?: boolean;
	}
}

const EXTENSIONS = [
	'GET /health',
	'GET /openapi.json',
	'the Idempotency-Key request header on POST, PUT and DELETE under /api (not on POST /api/tenant/token: a token is shown once and never stored in plain text, so it cannot be replayed)',
	'POST /api/tenant/token fields expires_in and revoke_previous',
	'GET /api/settings and GET /api/notifications',
	'settings fields contact_form_webhook_url and contact_form_webhook_headers',
	'POST /forms/{tenantId}/contact (public contact-form submission)',
	'GET /api/contact-form/deliveries',
	'GET /assets/{assetId}/{fileName} (token-free asset download)',
];

const DESCRIPTION = [
	'Reference implementation of the Site Management API (central and tenant surfaces).',
	'The contract is docs/api-contract.md in the repository; this document is its machine-readable form.',
	'',
	'Everything beyond service-api.md carries `x-extension: true` (operations, fields, headers):',
	...EXTENSIONS.map((e) => `- ${e}`),
	'',
	'Paths that service-api.md leaves open and the contract decides (the variables operations) carry both `x-extension: true` and `x-contract-decided: true`.',
	'',
	'Errors always have the body `{error, message, details?}`.',
].join('\n');

const idempotencyHeader = {
	type: 'string',
	minLength: 1,
	maxLength: 255,
	description:
		'Extension. The first 2xx/4xx answer is stored for 24 hours per caller and replayed (with Idempotent-Replayed: true) for a repeat; the same key with a different request answers 422 idempotency_key_reused.',
	'x-extension': true,
};

/** The upload route streams its multipart body itself, so its body schema exists for the document only. */
const uploadBody = {
	type: 'object',
	required: ['file'],
	properties: {
		file: { type: 'string', contentEncoding: 'binary', description: 'the file' },
		name: { type: 'string', description: 'optional display name; defaults to the file name' },
	},
};

/**
 * Generates the OpenAPI 3.1 document from the route schemas (@fastify/swagger) and serves it at
 * GET /openapi.json. Must be registered before the routes: swagger collects them as they are added.
 */
export default fp(
	async function openapiPlugin(app: FastifyInstance) {
		await app.register(swagger, {
			openapi: {
				openapi: '3.1.0',
				info: {
					title: 'Site Management API (reference server)',
					version: '1.0.0',
					description: DESCRIPTION,
				},
				components: {
					securitySchemes: {
						adminToken: {
							type: 'http',
							scheme: 'bearer',
							description: 'Central surface: the admin token given at server start.',
						},
						tenantToken: {
							type: 'http',
							scheme: 'bearer',
							description: 'Tenant surface: a token from POST /api/tenant/token.',
						},
					},
				},
				tags: [
					{ name: 'central', description: 'Tenants and tenant tokens (admin token)' },
					{ name: 'tenant', description: 'Site surface (tenant token)' },
					{ name: 'public', description: 'No token' },
				],
			},
			transform({ schema, url, route }) {
				if (!schema) return { schema, url };
				const methods = Array.isArray(route.method) ? route.method : [route.method];
				let documented: Record<string, unknown> = { ...schema };
				if (
					url.startsWith('/api/') &&
					route.config?.idempotency !== false &&
					methods.some((m) => ['POST', 'PUT', 'DELETE'].includes(m))
				) {
					const headers = (schema.headers ?? { type: 'object', properties: {} }) as {
						properties?: Record<string, unknown>;
					};
					documented.headers = {
						...headers,
						type: 'object',
						properties: { ...headers.properties, 'Idempotency-Key': idempotencyHeader },
					};
				}
				if (route.config?.multipart)
					documented = { ...documented, body: uploadBody, consumes: ['multipart/form-data'] };
				return { schema: documented as typeof schema, url };
			},
		});

		app.get(
			'/openapi.json',
			{
				schema: {
					summary: 'This OpenAPI document',
					tags: ['public'],
					'x-extension': true,
				} as Record<string, unknown>,
			},
			async () => app.swagger(),
		);
	},
	{ name: 'site-openapi' },
);
