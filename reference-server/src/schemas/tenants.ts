import { Type } from '@sinclair/typebox';
import {
	flagSchema,
	fqdnSchema,
	messageBody,
	paginatedList,
	paginationQueryProperties,
	responseObject,
	strictObject,
	tenantIdSchema,
} from './common';

export const createTenantBody = strictObject({
	id: tenantIdSchema,
	fqdn: Type.Optional(fqdnSchema),
});

export const updateTenantBody = strictObject({
	old_id: Type.Optional(tenantIdSchema),
	id: tenantIdSchema,
	fqdn: Type.Optional(fqdnSchema),
});

export const deleteTenantBody = strictObject({ id: tenantIdSchema });

export const tenantOkResponses = { 200: messageBody };

// Unknown query parameters are ignored (bodies, in contrast, reject unknown fields).
export const listTenantsQuery = Type.Object({
	...paginationQueryProperties,
	search: Type.Optional(
		Type.String({
			maxLength: 63,
			description: 'a fragment of the tenant id; empty lists every tenant',
		}),
	),
});

export const listTenantsResponses = {
	200: paginatedList(
		responseObject({
			id: { type: 'string' },
			fqdn: { type: ['string', 'null'] },
			created_at: { type: 'string', format: 'date-time' },
		}),
	),
} as const;

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
