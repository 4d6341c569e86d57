import { Type } from '@sinclair/typebox';
import { responseObject, strictObject } from './common';

/** The header a delivery carries its webhook secret in, and a claim presents it back in. */
export const DELIVERY_SECRET_HEADER = 'X-Site-Webhook-Secret';

export const deliverySecretHeaders = Type.Object({
	[DELIVERY_SECRET_HEADER.toLowerCase()]: Type.String({
		minLength: 1,
		maxLength: 1000,
		description: "the value the tenant's contact_form_webhook_headers give this header",
	}),
});

export const claimBody = strictObject({
	consumer: Type.String({
		minLength: 1,
		maxLength: 200,
		description: 'who consumes the submissions, e.g. an n8n workflow and node',
	}),
	key: Type.String({
		minLength: 1,
		maxLength: 300,
		description: 'what is claimed, e.g. a submission_id as JSON text',
	}),
});

function claimAnswer(claimed: boolean) {
	return responseObject({
		claimed: { type: 'boolean', const: claimed },
		claimed_at: {
			type: 'string',
			format: 'date-time',
			description: 'when the claim that holds the key was made',
		},
	});
}

export const claimResponses = {
	200: claimAnswer(false),
	201: claimAnswer(true),
};

export const releaseResponses = {
	200: responseObject({ released: { type: 'boolean' } }),
} as const;
