/**
 * Token > Issue: `POST /api/tenant/token` with `{id, expires_in?, revoke_previous?}`. The only
 * operation whose output carries a token: it belongs in a "Site Management Tenant API" credential.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { requireString } from '../../../shared/validation';
import { adminApiRequest } from '../../transport';

const properties: INodeProperties[] = [
	{
		displayName:
			'The output of this operation contains a tenant token. Paste it into a "Site Management Tenant API" credential; do not store it in a workflow. To avoid handling tokens at all, use the "Site Management Managed Tenant API" credential, which mints its own.',
		name: 'tokenNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Tenant ID',
		name: 'tenantId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'acme',
		description: 'ID of the tenant the token is for',
	},
	{
		displayName: 'Expires In (Seconds)',
		name: 'expiresIn',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description: 'Lifetime of the token in seconds; 0 means the token does not expire',
	},
	{
		displayName: 'Revoke Previous Tokens',
		name: 'revokePrevious',
		type: 'boolean',
		default: false,
		description:
			'Whether to revoke every earlier token of this tenant: this is how a token is rotated. Workflows still using an old token start failing with 401.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['token'], operation: ['issue'] } },
	properties,
);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const tenantId = requireString(this, 'tenantId', itemIndex, 'Tenant ID');
	const expiresIn = Math.floor(Number(this.getNodeParameter('expiresIn', itemIndex, 0)) || 0);
	const revokePrevious = this.getNodeParameter('revokePrevious', itemIndex, false) as boolean;
	const body: IDataObject = { id: tenantId, revoke_previous: revokePrevious };
	if (expiresIn > 0) body.expires_in = expiresIn;
	return objectOr(
		await adminApiRequest.call(
			this,
			{ method: 'POST', path: '/api/tenant/token', body },
			{ itemIndex },
		),
	);
}
