/**
 * Manual registration's secret credential: the header the site sends the secret in, the secret, and
 * the tenant whose submissions it takes. Checked on activation, in the credential test and on every
 * delivery (a credential edited after activation).
 */
import type { IDataObject } from 'n8n-workflow';

import { TENANT_ID_PATTERN } from '../shared/tenantScope';
import { DEFAULT_MANUAL_SECRET_HEADER, secretCredentialProblems } from './secret';

const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

/** The credential's header name; empty means the default. */
export function manualHeaderName(credentials: IDataObject): string {
	return String(credentials.headerName ?? '').trim() || DEFAULT_MANUAL_SECRET_HEADER;
}

/** The tenant a manual registration takes submissions of: the secret credential's Tenant ID. */
export function manualTenant(credentials: IDataObject): string {
	return String(credentials.tenantId ?? '').trim();
}

/** What is wrong with the secret credential's Tenant ID, if anything. */
export function manualTenantProblems(credentials: IDataObject): string[] {
	const tenantId = manualTenant(credentials);
	if (TENANT_ID.test(tenantId)) return [];
	return [
		tenantId === ''
			? 'Its Tenant ID is empty: name the tenant whose site sends here.'
			: `Its Tenant ID "${tenantId.slice(0, 80)}" is not a tenant ID.`,
	];
}

/** What makes the secret credential unusable: its header name, its secret, its Tenant ID. */
export function manualCredentialProblems(credentials: IDataObject): string[] {
	return [
		...secretCredentialProblems(manualHeaderName(credentials), credentials.secret),
		...manualTenantProblems(credentials),
	];
}
