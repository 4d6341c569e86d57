import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { takesIdempotencyKey } from './idempotency';

declare module 'fastify' {
	interface FastifySchema {
		/** Beyond service-api.md: kept in the OpenAPI document, ignored by validation. */
		'x-extension'?: boolean;
		/** Left open by service-api.md and decided by docs/api-contract.md. */
		'x-contract-decided'?: boolean;
	}
}

const DESCRIPTION = [
	'Reference implementation of the Site Management API (central and tenant surfaces).',
	'The contract is docs/api-contract.md in the repository; this document is its machine-readable form.',
	'',
	'Everything beyond service-api.md carries `x-extension: true` (operations, fields, headers); docs/api-contract.md lists them under "Extensions of the reference server".',
	'',
	'What service-api.md leaves open and the contract decides (the variables operations, the token fields expires_in and revoke_previous, the contact-form webhook settings) carries both `x-extension: true` and `x-contract-decided: true`: it stays when the server runs with --no-extensions, the rest goes.',
	'',
	'Errors always have the body `{error, message, details?}`.',
].join('\n');

const EXTENSIONS_OFF =
	'This server runs with --no-extensions: this document leaves out every extension but GET /health, GET /openapi.json and what the contract describes (x-contract-decided, the public contact form, asset downloads).';

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

/** Who may call an operation, by the tag of its surface. */
const SECURITY = {
	central: [{ adminToken: [] }],
	tenant: [{ tenantToken: [] }],
	public: [],
};

/** Response headers the plugins add, in an answer's schema as @fastify/swagger reads them. */
const retryAfter = {
	'Retry-After': { type: 'string', description: 'Seconds to wait before retrying.' },
};
const replayed = {
	'Idempotent-Replayed': {
		type: 'string',
		enum: ['true'],
		description:
			'Extension. `true` when this answer is a replay of the one stored for the Idempotency-Key.',
		'x-extension': true,
	},
};
const rateLimits = {
	'x-ratelimit-limit': { type: 'integer', description: 'Requests allowed in the current window.' },
	'x-ratelimit-remaining': { type: 'integer', description: 'Requests left in the current window.' },
	'x-ratelimit-reset': { type: 'integer', description: 'Seconds until the window resets.' },
};

/**
 * A route's answers as the document shows them: with the header the idempotency plugin adds to what
 * may be a replay, the public form's 429 (the rate limiter's), and the document's own answer.
 */
function documentedAnswers(url: string, response: unknown, idempotent: boolean) {
	const answers: Record<string, object> = {};
	for (const [status, answer] of Object.entries(response ?? {})) {
		answers[status] =
			idempotent && /^[24]/.test(status) ? { ...answer, headers: replayed } : answer;
	}
	if (url === '/forms/:tenantId/contact') {
		const description = 'Too many submissions from this address or for this tenant.';
		answers['429'] = { ...answers['4xx'], description, headers: { ...retryAfter, ...rateLimits } };
	}
	if (url === '/openapi.json')
		answers['200'] = { description: 'This document (OpenAPI 3.1)', type: 'object' };
	return answers;
}

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
					description: app.site.config.extensions
						? DESCRIPTION
						: `${DESCRIPTION}\n\n${EXTENSIONS_OFF}`,
					license: { name: 'MIT', identifier: 'MIT' },
					contact: {
						name: 'Site Management Integrations',
						email: 'integrations@site-management.dev',
					},
				},
				// Relative: the server's own origin (its --public-url when set behind a proxy).
				servers: [{ url: '/' }],
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
				// Tag and security follow the route's own auth hook, so the document cannot drift from it.
				const hooks = [route.onRequest ?? []].flat();
				const surface = hooks.includes(app.requireAdmin)
					? 'central'
					: hooks.includes(app.requireTenant)
						? 'tenant'
						: 'public';
				let documented: Record<string, unknown> = {
					tags: [surface],
					security: SECURITY[surface],
					...schema,
				};
				if (takesIdempotencyKey(route, app.site.config.extensions)) {
					const headers = schema.headers as { properties?: object } | undefined;
					const properties = { ...headers?.properties, 'Idempotency-Key': idempotencyHeader };
					documented.headers = { ...headers, type: 'object', properties };
				}
				const idempotent = takesIdempotencyKey(route, app.site.config.extensions);
				documented.response = documentedAnswers(url, schema.response, idempotent);
				if (route.config?.multipart)
					documented = { ...documented, body: uploadBody, consumes: ['multipart/form-data'] };
				return { schema: documented as typeof schema, url };
			},
		});

		app.get(
			'/openapi.json',
			{
				schema: {
					operationId: 'getOpenApiDocument',
					summary: 'This OpenAPI document',
					'x-extension': true,
				} as Record<string, unknown>,
			},
			async () => app.swagger(),
		);
	},
	{ name: 'site-openapi' },
);
