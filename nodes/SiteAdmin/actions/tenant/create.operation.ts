/**
 * Tenant > Create: `POST /api/tenant` with `{id, fqdn?}`, from two parameters (node version 1) or
 * from n8n's resource mapper (version 2).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { fieldsByVersion, recordFields, type ServiceField } from '../../../shared/fieldMapping';
import { fqdnField, TENANT_FIELD_LABELS, tenantIdField } from './fields';

/** `methods.resourceMapping.tenantFields` lists these. */
export const TENANT_FIELDS: readonly ServiceField[] = [
	{ id: 'id', displayName: tenantIdField.displayName, type: 'string', required: true },
	{ id: 'fqdn', displayName: fqdnField.displayName, type: 'string' },
];

const fieldsPerParameter: INodeProperties[] = [
	{ ...tenantIdField, description: `ID of the new tenant. ${tenantIdField.description}.` },
	fqdnField,
];

const properties = fieldsByVersion(fieldsPerParameter, 'tenantFields', 'tenant');

/** Version 1's fields: the ID and, when not empty, the domain. */
function fieldsFromParameters(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
	const fqdn = optionalString(ctx, 'fqdn', itemIndex);
	return { id: requireString(ctx, 'id', itemIndex, 'Tenant ID'), ...(fqdn ? { fqdn } : {}) };
}

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const body = recordFields(this, itemIndex, TENANT_FIELDS, fieldsFromParameters);
	const response = objectOr(
		await siteRequest.call(
			this,
			{ method: 'POST', path: '/api/tenant', body },
			{ itemIndex, target, fieldLabels: TENANT_FIELD_LABELS },
		),
	);
	// The tenant record {id, fqdn} (null when none), with the service's confirmation.
	return { id: body.id, fqdn: body.fqdn ?? null, ...response };
}
