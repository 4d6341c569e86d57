/**
 * Tenant > Update: `PUT /api/tenant` with `{old_id, id, fqdn?}`. Renames a tenant (its pages,
 * settings and tokens follow) and/or sets its domain. To change only the domain, give the same ID twice.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import { adminApiRequest } from '../../transport';
import { fqdnField, tenantIdField } from './fields';

const properties: INodeProperties[] = [
	{
		displayName: 'Current Tenant ID',
		name: 'oldId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'acme',
		description: 'The ID the tenant has now',
	},
	{
		...tenantIdField,
		displayName: 'New Tenant ID',
		description: `The ID the tenant should have; the same as the current ID to keep it. ${tenantIdField.description}.`,
	},
	{ ...fqdnField, description: 'New fully qualified domain name. Leave empty to not send it.' },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['update'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const oldId = requireString(this, 'oldId', itemIndex, 'Current Tenant ID');
	const id = requireString(this, 'id', itemIndex, 'New Tenant ID');
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const body: IDataObject = { old_id: oldId, id, ...(fqdn ? { fqdn } : {}) };
	const response = objectOr(
		await adminApiRequest.call(this, { method: 'PUT', path: '/api/tenant', body }, { itemIndex }),
	);
	return { ...response, id, old_id: oldId, ...(fqdn ? { fqdn } : {}) };
}
