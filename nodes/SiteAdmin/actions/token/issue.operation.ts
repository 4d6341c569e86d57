/**
 * Token > Issue: `POST /api/tenant/token` with `{id, expires_in?, revoke_previous?}`. The only
 * operation whose output carries a token: it belongs in a "Site Management Tenant API" credential.
 * The tenant is the shared Tenant ID parameter (`id`); a token lives 30 days unless told otherwise.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import { isToolForm } from '../../../shared/toolForm';
import { requireString } from '../../../shared/validation';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { tenantIdField } from '../tenant/fields';

/** The lifetime a token gets unless the user sets another: 30 days. */
const DEFAULT_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

const EXPIRES_IN: INodeProperties = {
	displayName: 'Expires In (Seconds)',
	name: 'expiresIn',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: DEFAULT_TOKEN_LIFETIME_SECONDS,
	description:
		'Lifetime of the token in seconds. Default 2,592,000 (30 days): the service asks for tokens to be rotated, so issue a new one before then. 0 means the token never expires.',
};

const properties: INodeProperties[] = [
	{
		displayName:
			'The output of this operation contains a tenant token, a secret. Paste it into a "Site Management Tenant API" credential; do not store it in a workflow. To avoid handling tokens at all, use the "Site Management Managed Tenant API" credential, which mints its own.',
		name: 'tokenNotice',
		type: 'notice',
		default: '',
	},
	{ ...tenantIdField, description: 'ID of the tenant the token is for' },
	EXPIRES_IN,
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

const FIELD_LABELS = {
	id: tenantIdField.displayName,
	expires_in: EXPIRES_IN.displayName,
	revoke_previous: 'Revoke Previous Tokens',
};

/** The longest lifetime the service takes (ten years, in seconds). */
const MAX_EXPIRES_IN = 10 * 365 * 24 * 60 * 60;

/**
 * Expires In for the item: a whole number of seconds up to the service's bound, or exactly 0 for a
 * token that never expires. Anything else (negative, fractional, text, empty) fails the item rather
 * than issue a token that never expires by accident.
 */
function readExpiresIn(ctx: IExecuteFunctions, itemIndex: number): number {
	const value = ctx.getNodeParameter(
		'expiresIn',
		itemIndex,
		DEFAULT_TOKEN_LIFETIME_SECONDS,
	) as unknown;
	const seconds =
		typeof value === 'number'
			? value
			: typeof value === 'string' && /^\s*\d+\s*$/.test(value)
				? Number(value)
				: NaN;
	if (Number.isInteger(seconds) && seconds >= 0 && seconds <= MAX_EXPIRES_IN) return seconds;
	throw new NodeOperationError(
		ctx.getNode(),
		`Expires In must be a whole number of seconds from 1 to ${MAX_EXPIRES_IN}, or 0 for a token that never expires; got ${JSON.stringify(value) ?? String(value)}`,
		{ itemIndex, description: 'No token was issued.' },
	);
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	// The tool form offers no Token resource; a workflow saved with one still never hands a model a token.
	if (isToolForm(this.getNode())) {
		throw new NodeOperationError(
			this.getNode(),
			'Token > Issue is not available to an AI agent: its output is a live token the model would see',
			{
				itemIndex,
				description:
					'Give the agent the Site Management Tenant node with a Managed Tenant credential instead: it mints its own tokens and never shows them.',
			},
		);
	}
	const tenantId = requireString(this, 'id', itemIndex, tenantIdField.displayName);
	const expiresIn = readExpiresIn(this, itemIndex);
	const revokePrevious = this.getNodeParameter('revokePrevious', itemIndex, false) as boolean;
	const body: IDataObject = { id: tenantId, revoke_previous: revokePrevious };
	if (expiresIn > 0) body.expires_in = expiresIn;
	return objectOr(
		await siteRequest.call(
			this,
			{ method: 'POST', path: '/api/tenant/token', body },
			{ itemIndex, target, fieldLabels: FIELD_LABELS },
		),
	);
}
