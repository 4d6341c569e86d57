/** Tenant > Delete: `DELETE /api/tenant` with `{id}`. All its data goes and its tokens stop working. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { requireString } from '../../../shared/validation';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { TENANT_FIELD_LABELS, tenantIdField } from './fields';

const properties: INodeProperties[] = [
	{
		...tenantIdField,
		description: 'ID of the tenant to delete. Its pages, settings and tokens are deleted with it.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['tenant'], operation: ['delete'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const id = requireString(this, 'id', itemIndex, 'Tenant ID');
	const response = objectOr(
		await siteRequest.call(
			this,
			{ method: 'DELETE', path: '/api/tenant', body: { id } },
			{ itemIndex, target, fieldLabels: TENANT_FIELD_LABELS },
		),
	);
	// The tenant, what happened to it, and the service's confirmation.
	return { id, deleted: true, ...response };
}
