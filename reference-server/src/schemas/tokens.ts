import { Type } from '@sinclair/typebox';
import { flagSchema, responseObject, strictObject, tenantIdSchema } from './common';

const TEN_YEARS_SECONDS = 10 * 365 * 24 * 60 * 60;

export const issueTokenBody = strictObject({
	id: tenantIdSchema,
	expires_in: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: TEN_YEARS_SECONDS,
			description: 'lifetime in seconds; absent = no expiry',
			'x-extension': true,
			'x-contract-decided': true,
		}),
	),
	revoke_previous: Type.Optional(
		flagSchema('revoke every earlier token of the tenant', {
			'x-extension': true,
			'x-contract-decided': true,
		}),
	),
});

export const issueTokenResponses = {
	200: responseObject({
		token: { type: 'string' },
		token_type: { type: 'string', enum: ['Bearer'] },
		tenant_id: { type: 'string' },
		expires_at: { type: ['string', 'null'], format: 'date-time' },
	}),
} as const;
