import { Type, type TProperties } from '@sinclair/typebox';
import { adminSecurity } from './common';

/**
 * Schema of a central call (admin token, tag `central`) whose strict object body names a tenant by
 * `id`; `properties` lists every accepted field, id included (the others optional).
 */
export function centralSchema<P extends TProperties, R extends Record<string, unknown>>(
	info: { summary: string; description?: string },
	properties: P,
	response: R,
) {
	return {
		...info,
		tags: ['central'],
		security: adminSecurity,
		body: Type.Object(properties, { additionalProperties: false }),
		response,
	};
}
