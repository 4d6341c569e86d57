import { Type } from '@sinclair/typebox';
import {
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
