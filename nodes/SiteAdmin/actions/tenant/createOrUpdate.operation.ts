/**
 * Tenant > Create or Update: `POST /api/tenant`; when that ID is taken (409), `PUT /api/tenant` with
 * `{old_id: id, id, fqdn?}` instead, so a workflow that sets up a site can run again.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import { adminApiRequest } from '../../transport';
import { fqdnField, tenantIdField } from './fields';

const properties: INodeProperties[] = [
	{
		...tenantIdField,
		description: `ID of the tenant to create, or to update if it exists. ${tenantIdField.description}.`,
	},
	{
		...fqdnField,
		description:
			"Fully qualified domain name of the tenant's site. Leave empty to not send it (an existing tenant keeps its domain).",
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['createOrUpdate'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireString(this, 'id', itemIndex, 'Tenant ID');
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const withDomain = fqdn ? { fqdn } : {};
	try {
		const body: IDataObject = { id, ...withDomain };
		const response = objectOr(
			await adminApiRequest.call(
				this,
				{ method: 'POST', path: '/api/tenant', body },
				{ itemIndex },
			),
		);
		return { id, fqdn: fqdn || null, created: true, ...response };
	} catch (error) {
		// The transport throws NodeApiError; only "that ID exists" (409) turns into an update.
		const apiError =
			error instanceof NodeApiError
				? error
				: new NodeApiError(this.getNode(), error as JsonObject, { itemIndex });
		if (apiError.httpCode !== '409') throw apiError;
	}
	const body: IDataObject = { old_id: id, id, ...withDomain };
	const response = objectOr(
		await adminApiRequest.call(this, { method: 'PUT', path: '/api/tenant', body }, { itemIndex }),
	);
	// Without a new domain the tenant keeps the one it has, which the service does not return.
	return { id, ...withDomain, created: false, ...response };
}
