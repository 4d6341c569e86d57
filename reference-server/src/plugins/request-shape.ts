import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unsupportedMediaType } from '../errors/api-error';
import { addRouteHook } from '../lib/route-hooks';

interface PropertySchema {
	type?: string | string[];
}

function coerceQueryValue(value: unknown, schema: PropertySchema): unknown {
	if (typeof value !== 'string') return value;
	const types = Array.isArray(schema.type) ? schema.type : [schema.type];
	if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value))
		return Number(value);
	if (types.includes('boolean')) {
		if (value === 'true' || value === '1') return true;
		if (value === 'false' || value === '0') return false;
	}
	return value;
}

/**
 * Request-shape rules that JSON Schema alone does not give:
 * - Bodies are validated without type coercion (so `"templates": {}` is not turned into `[{}]`), which
 *   means query strings must be coerced here, from each route's querystring schema, before validation.
 * - Every route except the upload is JSON-only: multipart (which @fastify/multipart accepts globally)
 *   gets a 415 there. Other non-JSON types have no parser and get Fastify's own 415.
 */
export default fp(
	async function requestShapePlugin(app: FastifyInstance) {
		// Fastify parses text/plain by default; a JSON endpoint sent text must be a 415, not a 400.
		app.removeContentTypeParser('text/plain');

		const refuseMultipart = async (request: FastifyRequest) => {
			if (request.isMultipart())
				throw unsupportedMediaType('This endpoint accepts application/json only.');
		};

		// Each route gets only the hooks it needs, with its query coercion worked out once (route-hooks.ts).
		app.addHook('onRoute', (route) => {
			if (!route.config?.multipart) addRouteHook(route, 'preValidation', refuseMultipart);
			const properties = (
				route.schema?.querystring as { properties?: Record<string, PropertySchema> } | undefined
			)?.properties;
			if (!properties) return;
			const fields = Object.entries(properties);
			addRouteHook(route, 'preValidation', async (request: FastifyRequest) => {
				const query = request.query as Record<string, unknown>;
				for (const [name, schema] of fields)
					if (name in query) query[name] = coerceQueryValue(query[name], schema);
			});
		});
	},
	{ name: 'site-request-shape', dependencies: ['site-errors'] },
);
