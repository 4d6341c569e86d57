import { Type } from '@sinclair/typebox';
import type { DeliveryState } from '../db/contact-form';
import type { ServerConfig } from '../types';
import { paginatedList, paginationQueryProperties, responseObject } from './common';

const DELIVERY_STATES: DeliveryState[] = ['pending', 'delivered', 'failed'];

const deliverySchema = responseObject({
	id: { type: 'string' },
	submission_id: { type: 'string' },
	state: { type: 'string', enum: DELIVERY_STATES },
	attempts: { type: 'integer' },
	last_status: {
		type: ['integer', 'null'],
		description: 'HTTP status of the last attempt; null for a network error or none yet',
	},
	last_error: { type: ['string', 'null'] },
	next_attempt_at: {
		type: ['string', 'null'],
		format: 'date-time',
		description: 'null once delivered or failed',
	},
	delivered_at: { type: ['string', 'null'], format: 'date-time' },
	created_at: { type: 'string', format: 'date-time' },
	updated_at: { type: 'string', format: 'date-time' },
});

export const formParams = Type.Object({ tenantId: Type.String({ maxLength: 63 }) });

/** The public form's fields; the bounds come from the server's options. */
export function formBody(
	config: Pick<ServerConfig, 'formMaxFields' | 'formMaxFieldLength' | 'formMaxBodyKb'>,
) {
	return Type.Unsafe<Record<string, unknown>>({
		type: 'object',
		maxProperties: config.formMaxFields,
		propertyNames: { maxLength: 200 },
		// Any JSON value; the length bound applies to text.
		additionalProperties: {
			type: ['string', 'number', 'boolean', 'null', 'object', 'array'],
			// Any items (said explicitly, for the OpenAPI linters).
			items: {},
			maxLength: config.formMaxFieldLength,
		},
		description: `the form fields: at most ${config.formMaxFields}, names of at most 200 characters, text values of at most ${config.formMaxFieldLength} characters; the body at most ${config.formMaxBodyKb} KB (413 above); rate limited per client address and per tenant (429 with Retry-After)`,
	});
}

export const formResponses = {
	202: responseObject({ submission_id: { type: 'string', format: 'uuid' } }),
} as const;

export const deliveriesQuery = Type.Object({
	...paginationQueryProperties,
	state: Type.Optional(Type.Unsafe<DeliveryState>({ type: 'string', enum: DELIVERY_STATES })),
});

export const deliveriesResponses = { 200: paginatedList(deliverySchema) } as const;
