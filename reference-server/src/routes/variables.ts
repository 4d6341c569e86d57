import type { FastifyInstance } from 'fastify';
import { ApiError, notFound } from '../errors/api-error';
import { tenantOf } from '../context';
import { errorResponses, messageBody, tenantSecurity } from '../schemas/common';

const keySchema = {
	type: 'string',
	minLength: 1,
	maxLength: 128,
	pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$',
	'x-problem': 'must be 1 to 128 characters of letters, digits, _, . and -, starting with a letter or _',
} as const;
const variableSchema = {
	type: 'object',
	required: ['key', 'value'],
	properties: { key: { type: 'string' }, value: { type: 'string' } },
} as const;

/**
 * Variables exist only when the server runs with --enable-variables; otherwise every call is a 403
 * feature_disabled (after authentication: an unauthenticated caller learns nothing about the switch).
 */
export default async function variableRoutes(app: FastifyInstance) {
	const { store, config } = app.site;
	const requireVariablesEnabled = async () => {
		if (!config.enableVariables) {
			throw new ApiError(403, 'feature_disabled', 'Variables are not enabled on this server (start it with --enable-variables).');
		}
	};
	// Both run before the body is parsed or validated, so a disabled feature is a 403 whatever the body.
	const common = { onRequest: [app.requireTenant, requireVariablesEnabled] };
	const docs = { tags: ['tenant'], security: tenantSecurity, 'x-extension': true, 'x-contract-decided': true };

	app.get(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'List variables, sorted by key',
				response: {
					200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: variableSchema } } },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request) => ({ data: store.variables.list(tenantOf(request).pk) }),
	);

	app.put<{ Body: { key: string; value: string } }>(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'Create or replace a variable',
				body: {
					type: 'object',
					required: ['key', 'value'],
					additionalProperties: false,
					properties: { key: keySchema, value: { type: 'string', maxLength: 65536 } },
				},
				response: {
					200: { type: 'object', required: ['message', 'variable'], properties: { message: { type: 'string' }, variable: variableSchema } },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request) => {
			const variable = store.variables.save(tenantOf(request).pk, request.body.key, request.body.value);
			return { message: 'Variable saved.', variable };
		},
	);

	app.delete<{ Body: { key: string } }>(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'Delete a variable',
				body: { type: 'object', required: ['key'], additionalProperties: false, properties: { key: keySchema } },
				response: { 200: messageBody, ...errorResponses },
			} as Record<string, unknown>,
		},
		async (request) => {
			if (!store.variables.remove(tenantOf(request).pk, request.body.key)) throw notFound(`Variable "${request.body.key}" not found.`);
			return { message: 'Variable deleted.' };
		},
	);
}
