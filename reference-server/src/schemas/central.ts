import { Type, type TProperties } from '@sinclair/typebox';

/**
 * Schema of a central call (admin token) whose strict object body names a tenant by
 * `id`; `properties` lists every accepted field, id included (the others optional).
 */
export function centralSchema<P extends TProperties, R extends Record<string, unknown>>(
	info: { summary: string; description?: string },
	properties: P,
	response: R,
) {
	return {
		...info,
		body: Type.Object(properties, { additionalProperties: false }),
		response,
	};
}
