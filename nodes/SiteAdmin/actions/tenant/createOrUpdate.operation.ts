/**
 * Tenant > Create or Update: `POST /api/tenant`; when that ID is taken (409), `PUT /api/tenant` with
 * `{old_id: id, id, fqdn}` instead, so a workflow that sets up a site can run again. It answers in
 * one shape, `{id, fqdn, created, result, message}`. An existing tenant with no domain to set, or with
 * the domain it has already (read from the tenant listing, where the service has it), is left as it
 * is (`result: "unchanged"`, no PUT).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { optionalString, requireString } from '../../../shared/validation';
import type { RequestTarget, SiteItem } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { listedTenants } from './getAll.operation';
import { fqdnField, TENANT_FIELD_LABELS, tenantIdField } from './fields';

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

type Send = (method: 'POST' | 'PUT', body: IDataObject) => Promise<IDataObject>;

/** POST the tenant; undefined when the ID is taken (409), the answer otherwise. */
async function create(ctx: IExecuteFunctions, send: Send, body: IDataObject, itemIndex: number) {
	try {
		return await send('POST', body);
	} catch (error) {
		// The transport throws NodeApiError; only "that ID exists" (409) turns into an update.
		const apiError =
			error instanceof NodeApiError
				? error
				: new NodeApiError(ctx.getNode(), error as JsonObject, { itemIndex });
		if (apiError.httpCode !== '409') throw apiError;
		return undefined;
	}
}

/** The domain tenant `id` has now; undefined when the service cannot list tenants (an extension). */
async function currentDomain(ctx: IExecuteFunctions, id: string, item: SiteItem) {
	const found = await listedTenants(ctx, item, { search: id }, { returnAll: true });
	if (!Array.isArray(found)) return undefined;
	return found.find((tenant) => tenant.id === id)?.fqdn ?? null;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const id = requireString(this, 'id', itemIndex, 'Tenant ID');
	const fqdn = optionalString(this, 'fqdn', itemIndex);
	const withDomain = fqdn ? { fqdn } : {};
	const send: Send = async (method, body) =>
		objectOr(
			await siteRequest.call(
				this,
				{ method, path: '/api/tenant', body },
				{ itemIndex, target, fieldLabels: TENANT_FIELD_LABELS },
			),
		);

	const created = await create(this, send, { id, ...withDomain }, itemIndex);
	if (created) return { id, fqdn: fqdn || null, created: true, result: 'created', ...created };
	if (!fqdn) {
		// Nothing to change: the tenant keeps its ID and its domain, which the service does not return.
		return {
			id,
			fqdn: null,
			created: false,
			result: 'unchanged',
			message: `Tenant "${id}" exists; nothing to change (no domain given, it keeps its own).`,
		};
	}
	if ((await currentDomain(this, id, { itemIndex, target })) === fqdn)
		return {
			id,
			fqdn,
			created: false,
			result: 'unchanged',
			message: `Tenant "${id}" exists with this domain; nothing to change.`,
		};
	const updated = await send('PUT', { old_id: id, id, ...withDomain });
	return { id, fqdn, created: false, result: 'updated', ...updated };
}
