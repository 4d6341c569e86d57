import { Type } from '@sinclair/typebox';
import { dataList, patternWithinLength, responseObject, strictObject } from './common';
import {
	WEBHOOK_TARGET_WORDS,
	WEBHOOK_URL,
	WEBHOOK_URL_WORDS,
	settingsBody,
	testWebhookSchema,
} from './settings';

/** The longest a test webhook lives: n8n listens for at most 10 minutes. */
const TEST_WEBHOOK_MAX_TTL_SECONDS = 3600;

/** The same rule as the settings' contact_form_webhook_url (which also takes "" and null). */
const url = Type.String({
	minLength: 1,
	...patternWithinLength({
		maxLength: 2048,
		pattern: `^${WEBHOOK_URL}$`,
		problem: `must be ${WEBHOOK_URL_WORDS}`,
	}),
	description: `the URL that gets a copy of each new submission: ${WEBHOOK_URL_WORDS}. ${WEBHOOK_TARGET_WORDS}`,
});

/** Removal takes any URL a test webhook may have been set with: an unknown one answers removed: false. */
const removedUrl = Type.String({
	minLength: 1,
	maxLength: 2048,
	description: 'the URL the test webhook was set with',
});

export const testWebhookBody = strictObject({
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
});

export const testWebhookRemoveBody = strictObject({ url: removedUrl });

export const testWebhookResponses = { 200: testWebhookSchema } as const;

export const testWebhookListResponses = { 200: dataList(testWebhookSchema) } as const;

export const testWebhookRemoveResponses = {
	200: responseObject({ removed: { type: 'boolean' } }),
} as const;
