/**
 * Tenant > Update: `PUT /api/tenant` with `{old_id, id, fqdn?}`. Renames a tenant (its pages and
 * settings follow; tokens issued for the old name stop working) and/or sets its domain: Tenant ID (`id`, the tenant to change, as in
 * every other operation) and an optional New Tenant ID (`newId`). A tenant that does not exist is
 * an error (a typo must not make a stray site), unless Create If Missing is on.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { requestFailure } from '../../../shared/errors';
import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
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
	{
		displayName: 'Create If Missing',
		name: 'createIfMissing',
		type: 'boolean',
		default: false,
		description:
			'Whether to create the tenant (with the New Tenant ID if given, else the Tenant ID) when no tenant has the Tenant ID. Off: a missing tenant is an error, so a mistyped ID never creates a site.',
	},
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

/** The service's answer for a tenant ID that names no tenant. */
const isMissingTenant = (error: NodeApiError) =>
	error.httpCode === '404' && (error.context as IDataObject).error === 'not_found';

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const { oldId, id, labels } = readIds(this, itemIndex);
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const createIfMissing = this.getNodeParameter('createIfMissing', itemIndex, false) === true;
	const send = async (method: 'PUT' | 'POST', body: IDataObject) =>
		objectOr(
			await siteRequest.call(
				this,
				{ method, path: '/api/tenant', body },
				{ itemIndex, target, fieldLabels: { ...TENANT_FIELD_LABELS, ...labels } },
			),
		);
	const withDomain = fqdn ? { fqdn } : {};
	try {
		const response = await send('PUT', { old_id: oldId, id, ...withDomain });
		return { ...response, id, old_id: oldId, ...withDomain };
	} catch (error) {
		const { failure } = requestFailure(this.getNode(), error, itemIndex);
		if (!(failure instanceof NodeApiError) || !isMissingTenant(failure)) throw failure;
		if (!createIfMissing) {
			failure.description = `Update changes an existing tenant only. Check the Tenant ID "${oldId}", or turn on Create If Missing to create the tenant.`;
			throw failure;
		}
	}
	const created = await send('POST', { id, ...withDomain });
	return { ...created, id, fqdn: fqdn || null, created: true };
}
