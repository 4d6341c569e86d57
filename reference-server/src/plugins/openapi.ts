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

const retryAfterHeader = {
	description: 'Seconds to wait before retrying.',
	schema: { type: 'string' },
};

const replayedHeader = {
	description:
		'Extension. `true` when this answer is a replay of the one stored for the Idempotency-Key.',
	schema: { type: 'string', enum: ['true'] },
	'x-extension': true,
};

const rateLimitHeaders = {
	'x-ratelimit-limit': {
		description: 'Requests allowed in the current window.',
		schema: { type: 'integer' },
	},
	'x-ratelimit-remaining': {
		description: 'Requests left in the current window.',
		schema: { type: 'integer' },
	},
	'x-ratelimit-reset': {
		description: 'Seconds until the window resets.',
		schema: { type: 'integer' },
	},
};

interface OpenApiOperation {
	parameters?: { in: string; name: string; schema?: unknown }[];
	responses?: Record<
		string,
		{ description?: string; headers?: Record<string, unknown>; content?: Record<string, unknown> }
	>;
}

/**
 * Fills in what the route schemas cannot say: the document's own answer, and the response headers
 * the plugins add (Retry-After, Idempotent-Replayed, the rate-limit headers).
 */
function completeDocument(document: Record<string, unknown>): Record<string, unknown> {
	const paths = (document.paths ?? {}) as Record<string, Record<string, OpenApiOperation>>;
	for (const item of Object.values(paths)) {
		for (const operation of Object.values(item)) {
			if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
			const responses = (operation.responses ??= {});
			const idempotent = operation.parameters?.some(
				(p) => p.in === 'header' && p.name === 'Idempotency-Key',
			);
			if (idempotent) {
				for (const [status, response] of Object.entries(responses)) {
					if (status.startsWith('2') || status.startsWith('4'))
						response.headers = { ...response.headers, 'Idempotent-Replayed': replayedHeader };
				}
			}
			// 503: the fault injection (and an overloaded server) answers with Retry-After.
			if (responses['5xx'])
				responses['5xx'].headers = { ...responses['5xx'].headers, 'Retry-After': retryAfterHeader };
		}
	}

	const form = paths['/forms/{tenantId}/contact']?.post;
	if (form?.responses) {
		form.responses['429'] = {
			description: 'Too many submissions from this address or for this tenant.',
			headers: { 'Retry-After': retryAfterHeader, ...rateLimitHeaders },
			content: form.responses['4xx']?.content,
		};
	}

	const openapi = paths['/openapi.json']?.get;
	if (openapi?.responses) {
		openapi.responses['200'] = {
			description: 'This document (OpenAPI 3.1)',
			content: { 'application/json': { schema: { type: 'object' } } },
		};
	}
	return document;
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
				if (route.config?.multipart)
					documented = { ...documented, body: uploadBody, consumes: ['multipart/form-data'] };
				return { schema: documented as typeof schema, url };
			},
			transformObject: (documentObject) =>
				completeDocument(
					(documentObject as { openapiObject: Record<string, unknown> }).openapiObject,
				),
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
