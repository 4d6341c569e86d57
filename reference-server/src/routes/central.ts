import type { TenantRepository, TenantRow } from '../db/tenants';
import { notFound } from '../errors/api-error';

/** The tenant with this id; 404 not_found when there is none. */
export function existingTenant(tenants: TenantRepository, id: string): TenantRow {
	const tenant = tenants.findById(id);
	if (!tenant) throw notFound(`Tenant "${id}" not found.`);
	return tenant;
}
