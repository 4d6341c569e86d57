/**
 * The Tenant parameter: which site a Managed Tenant credential acts on, per item, within the
 * credential's scope. Empty means the credential's Tenant ID. Read in one place only
 * (../../shared/target.ts).
 */
import type { INodeProperties } from 'n8n-workflow';

import { MANAGED_TENANT } from '../../shared/target';
import { TENANT_ID_PATTERN } from '../../shared/tenantScope';

export const tenantProperty: INodeProperties = {
	displayName: 'Tenant',
	name: 'tenant',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description:
		"The site to work on, item by item, e.g. an expression reading the item's tenant field. Leave empty to use the credential's Tenant ID. It must lie within the credential's Tenant Scope; an expression that fails or resolves empty fails the item.",
	displayOptions: { show: { authentication: [MANAGED_TENANT] } },
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchTenants', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'acme',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: TENANT_ID_PATTERN,
						errorMessage:
							'A tenant ID is 1 to 63 lowercase letters, digits, - and _, starting with a letter or digit',
					},
				},
			],
		},
	],
};
