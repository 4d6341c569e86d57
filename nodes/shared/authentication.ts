/**
 * The Authentication parameter of the nodes that work on a tenant (target.ts maps the chosen value
 * to the credential type at run time; each node lists the two credentials as a literal array, which
 * n8n's lint rules read).
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { MANAGED_TENANT, TENANT_TOKEN } from './target';

export { MANAGED_TENANT, TENANT_TOKEN, tenantCredentialType } from './target';

/** The Authentication parameter; `displayOptions` when it only applies to some settings of the node. */
export function tenantAuthenticationProperty(displayOptions?: IDisplayOptions): INodeProperties {
	return {
		displayName: 'Authentication',
		name: 'authentication',
		type: 'options',
		options: [
			{
				name: 'Tenant Token',
				value: TENANT_TOKEN,
				description: 'A tenant token pasted into a "Site Management Tenant API" credential',
			},
			{
				name: 'Managed Tenant',
				value: MANAGED_TENANT,
				description:
					'A "Site Management Managed Tenant API" credential that mints short-lived tenant tokens itself from the admin token',
			},
		],
		default: TENANT_TOKEN,
		...(displayOptions ? { displayOptions } : {}),
	};
}
