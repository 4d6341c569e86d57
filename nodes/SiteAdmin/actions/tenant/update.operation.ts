/**
 * Tenant > Update: `PUT /api/tenant` with `{old_id, id, fqdn?}`. Renames a tenant (its pages,
 * settings and tokens follow) and/or sets its domain: Tenant ID (`id`, the tenant to change, as in
 * every other operation) and an optional New Tenant ID (`newId`).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import { adminApiRequest } from '../../transport';
import { fqdnField, TENANT_FIELD_LABELS, tenantIdField } from './fields';

const NEW_ID_HELP = `The ID the tenant should have. ${tenantIdField.description}`;

const properties: INodeProperties[] = [
	{
		...tenantIdField,
		description: `ID of the tenant to change (the ID it has now). ${tenantIdField.description}.`,
	},
	{
		...tenantIdField,
		displayName: 'New Tenant ID',
		name: 'newId',
		required: false,
		description: `${NEW_ID_HELP}. Leave empty to keep the current ID.`,
	},
	{ ...fqdnField, description: 'New fully qualified domain name. Leave empty to not send it.' },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['update'] } },
	properties,
);

/** The tenant to change and the ID it gets, with the labels the editor shows for them. */
function readIds(ctx: IExecuteFunctions, itemIndex: number) {
	const oldId = requireString(ctx, 'id', itemIndex, tenantIdField.displayName);
	const id = optionalString(ctx, 'newId', itemIndex) ?? oldId;
	return { oldId, id, labels: { old_id: 'Tenant ID', id: 'New Tenant ID' } };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { oldId, id, labels } = readIds(this, itemIndex);
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const body: IDataObject = { old_id: oldId, id, ...(fqdn ? { fqdn } : {}) };
	const response = objectOr(
		await adminApiRequest.call(
			this,
			{ method: 'PUT', path: '/api/tenant', body },
			{ itemIndex, fieldLabels: { ...TENANT_FIELD_LABELS, ...labels } },
		),
	);
	return { ...response, id, old_id: oldId, ...(fqdn ? { fqdn } : {}) };
}
