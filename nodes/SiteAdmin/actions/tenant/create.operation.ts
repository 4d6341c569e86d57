/** Tenant > Create: `POST /api/tenant` with `{id, fqdn?}`. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { fqdnField, TENANT_FIELD_LABELS, tenantIdField } from './fields';

const properties: INodeProperties[] = [
	{ ...tenantIdField, description: `ID of the new tenant. ${tenantIdField.description}.` },
	fqdnField,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const id = requireString(this, 'id', itemIndex, 'Tenant ID');
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const body: IDataObject = { id, ...(fqdn ? { fqdn } : {}) };
	const response = objectOr(
		await siteRequest.call(
			this,
			{ method: 'POST', path: '/api/tenant', body },
			{ itemIndex, target, fieldLabels: TENANT_FIELD_LABELS },
		),
	);
	// The tenant record {id, fqdn} (null when none), with the service's confirmation.
	return { id, fqdn: fqdn || null, ...response };
}
