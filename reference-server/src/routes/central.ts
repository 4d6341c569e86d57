import type { TenantRepository, TenantRow } from '../db/tenants';
import { notFound } from '../errors/api-error';
import { adminSecurity } from '../schemas/common';

/**
 * Schema of a central call (admin token, tag `central`) whose strict object body names a tenant by
 * `id`; `properties` lists every accepted field, id included.
 */
export function centralSchema<P extends Record<string, unknown>, R extends Record<string, unknown>>(
	info: { summary: string; description?: string },
	properties: P,
	response: R,
) {
	return {
		...info,
		tags: ['central'],
		security: adminSecurity,
		body: { type: 'object', required: ['id'], additionalProperties: false, properties },
		response,
	};
}

/** The tenant with this id; 404 not_found when there is none. */
export function existingTenant(tenants: TenantRepository, id: string): TenantRow {
	const tenant = tenants.findById(id);
	if (!tenant) throw notFound(`Tenant "${id}" not found.`);
	return tenant;
}
