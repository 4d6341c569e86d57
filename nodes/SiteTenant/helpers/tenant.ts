/**
 * The Tenant parameter: which site a Managed Tenant credential acts on, per item. Empty means the
 * credential's own Tenant ID; with that left empty, one admin credential serves every tenant.
 */
import type { INodeProperties } from 'n8n-workflow';

import { MANAGED_TENANT } from '../../shared/authentication';
import { isRecord } from '../../shared/json';
import type { SiteRequestContext } from '../../shared/transport';

/** The contract's tenant id: 1 to 63 of a-z, 0-9, - and _, starting with a letter or digit. */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

export const tenantProperty: INodeProperties = {
	displayName: 'Tenant',
	name: 'tenant',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	description:
		"The site to work on, item by item. Leave empty to use the credential's Tenant ID. With the credential's Tenant ID left empty, one admin credential reaches every site: name it here, e.g. with an expression reading the item's tenant field.",
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

/** The tenant the node names for the item ('' when none: the credential's Tenant ID applies). */
export function nodeTenant(ctx: SiteRequestContext, itemIndex: number): string {
	let value: unknown;
	try {
		if ('getInputData' in ctx) {
			value = ctx.getNodeParameter('tenant', itemIndex, '', { extractValue: true });
		} else if ('getCurrentNodeParameter' in ctx) {
			value = ctx.getCurrentNodeParameter('tenant', { extractValue: true });
		}
	} catch {
		// A node without the parameter (the triggers): the credential's Tenant ID.
		return '';
	}
	if (isRecord(value)) value = value.value;
	return String(value ?? '').trim();
}
