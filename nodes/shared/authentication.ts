/**
 * The Authentication parameter of the nodes that work on a tenant, the two credentials it picks
 * between, and the one place that maps the chosen value to the credential type at run time.
 */
import type {
	ICredentialsDisplayOptions,
	IDisplayOptions,
	INodeCredentialDescription,
	INodeProperties,
} from 'n8n-workflow';

import type { SiteCredentialType, SiteRequestContext } from './transport';

export type TenantAuthentication = 'tenantToken' | 'managedTenant';

export const TENANT_TOKEN: TenantAuthentication = 'tenantToken';
export const MANAGED_TENANT: TenantAuthentication = 'managedTenant';

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

/**
 * The credential type the Authentication parameter picks. A run of a node reads it per item; a hook,
 * webhook or the editor's list search has no items and its getNodeParameter takes the fallback second.
 */
export function tenantCredentialType(ctx: SiteRequestContext, itemIndex = 0): SiteCredentialType {
	const authentication = (
		'getInputData' in ctx
			? ctx.getNodeParameter('authentication', itemIndex, TENANT_TOKEN)
			: ctx.getNodeParameter('authentication', TENANT_TOKEN)
	) as TenantAuthentication;
	return authentication === MANAGED_TENANT ? 'siteManagedTenantApi' : 'siteTenantApi';
}
