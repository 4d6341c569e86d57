import type { FastifyInstance, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';

/**
 * `--no-extensions` (`extensions: false`): the server answers as a deployment of the described
 * service would, without the extensions of docs/api-contract.md.
 *
 * - Extension routes are not registered (each route plugin asks `app.site.config.extensions`): an
 *   unknown path answers 404, a described path asked with another method 405 (GET /api/settings).
 * - Fields marked `x-extension` in a route's body, query or answer schema are left out of the schema
 *   (here): an extension body field is refused as any unknown field, an extension query parameter
 *   ignored as any unknown one, an extension answer field not sent, and none is in the OpenAPI
 *   document. Fields the contract decides where service-api.md leaves them open carry
 *   `x-contract-decided` too and stay (the token's `expires_in`, the contact-form webhook settings).
 * - The Idempotency-Key header is ignored (plugins/idempotency.ts).
 *
 * What stays: `GET /health` and `GET /openapi.json` (how one runs and reads the server), and what the
 * contract describes though service-api.md does not name it: the public contact form
 * `POST /forms/{tenantId}/contact` and its deliveries, token-free asset downloads, the variables
 * (still behind --enable-variables), and the server's limits.
 */
export default fp(
	async function extensionsPlugin(app: FastifyInstance) {
		if (app.site.config.extensions) return;
		app.addHook('onRoute', (route: RouteOptions) => {
			if (route.schema) route.schema = withoutExtensionFields(route.schema) as typeof route.schema;
		});
	},
	{ name: 'site-extensions' },
);

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isExtensionOnly(schema: unknown): boolean {
	return isObject(schema) && schema['x-extension'] === true && !schema['x-contract-decided'];
}

/**
 * A copy of a route's schemas (body, query, answers by status) without the properties marked as
 * extensions, at any depth; the schemas shared between routes are not changed.
 */
export function withoutExtensionFields(schema: unknown): unknown {
	if (Array.isArray(schema)) return schema.map(withoutExtensionFields);
	if (!isObject(schema)) return schema;
	const copy = Object.fromEntries(
		Object.entries(schema).map(([key, value]) => [key, withoutExtensionFields(value)]),
	);
	if (isObject(schema.properties)) {
		const properties = schema.properties;
		const kept = Object.keys(properties).filter((name) => !isExtensionOnly(properties[name]));
		copy.properties = Object.fromEntries(
			kept.map((name) => [name, (copy.properties as Record<string, unknown>)[name]]),
		);
		if (Array.isArray(schema.required))
			copy.required = schema.required.filter((name) => kept.includes(name));
	}
	return copy;
}
