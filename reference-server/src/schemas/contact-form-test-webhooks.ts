import { Type } from '@sinclair/typebox';
import { errorResponses } from './common';
import { settingsBody } from './settings';

/** The longest a test webhook lives: n8n listens for at most 10 minutes. */
export const TEST_WEBHOOK_MAX_TTL_SECONDS = 3600;

const url = Type.String({
	minLength: 1,
	maxLength: 2048,
	description: 'an http(s) URL that gets a copy of each new submission',
});

export const testWebhookBody = Type.Object(
	{
		url,
		// The same rules as the settings' contact_form_webhook_headers.
		headers: settingsBody.properties.contact_form_webhook_headers,
		ttl_seconds: Type.Optional(
			Type.Integer({
				minimum: 1,
				maximum: TEST_WEBHOOK_MAX_TTL_SECONDS,
				default: 600,
				description: 'how long copies are sent; the test webhook is gone afterwards',
			}),
		),
	},
	{ additionalProperties: false },
);

export const testWebhookRemoveBody = Type.Object({ url }, { additionalProperties: false });

const testWebhookSchema = {
	type: 'object',
	required: ['url', 'expires_at'],
	properties: {
		url: { type: 'string' },
		expires_at: { type: 'string', format: 'date-time' },
	},
} as const;

export const testWebhookResponses = { 200: testWebhookSchema, ...errorResponses } as const;

export const testWebhookListResponses = {
	200: {
		type: 'object',
		required: ['data'],
		properties: { data: { type: 'array', items: testWebhookSchema } },
	},
	...errorResponses,
} as const;

export const testWebhookRemoveResponses = {
	200: { type: 'object', required: ['removed'], properties: { removed: { type: 'boolean' } } },
	...errorResponses,
} as const;
