/**
 * The Authentication parameter of the nodes that work on a tenant and the two credentials it picks
 * between (target.ts maps the chosen value to the credential type at run time).
 */
import type {
	ICredentialsDisplayOptions,
	IDisplayOptions,
	INodeCredentialDescription,
	INodeProperties,
} from 'n8n-workflow';

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

/** Both tenant credentials, each shown for its Authentication value (and the extra `show` conditions). */
export function tenantCredentials(
	show: NonNullable<ICredentialsDisplayOptions['show']> = {},
): INodeCredentialDescription[] {
	return [
		{
			name: 'siteTenantApi',
			required: true,
			displayOptions: { show: { ...show, authentication: [TENANT_TOKEN] } },
		},
		{
			name: 'siteManagedTenantApi',
			required: true,
			displayOptions: { show: { ...show, authentication: [MANAGED_TENANT] } },
		},
	];
}
