import { Type } from '@sinclair/typebox';
import {
	flagSchema,
	messageBody,
	paginatedList,
	paginationQueryProperties,
	patternWithinLength,
	responseObject,
	strictObject,
} from './common';

const tenantIdSchema = Type.String({
	minLength: 1,
	...patternWithinLength({
		maxLength: 63,
		pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
		problem: 'must be 1 to 63 characters of a-z, 0-9, - and _, starting with a letter or digit',
	}),
	description: '1 to 63 characters of a-z, 0-9, -, _, starting with a letter or digit',
});

/** Labels of 1-63 letters/digits/hyphens, not starting or ending with a hyphen; at least two labels; at most 253 characters. */
const fqdnSchema = Type.Unsafe<string | null>({
	type: ['string', 'null'],
	...patternWithinLength({
		maxLength: 253,
		pattern:
			'^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
		problem: 'must be a domain name such as www.example.com (or null)',
	}),
	description: 'a fully qualified domain name such as www.example.com; null for none',
});

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
