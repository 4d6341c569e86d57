import { Type } from '@sinclair/typebox';
import { errorResponses, flagSchema, patternWithinLength } from './common';

/** RFC 9110 token characters; values exclude CR, LF and NUL so no header can be smuggled. */
const HEADER_NAME = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$";
/**
 * Headers the delivery worker can never send as configured: it sets them itself (content type and
 * length, host, user agent, its delivery mark) or they change how HTTP carries the request.
 */
const RESERVED_HEADERS = [
	'content-type',
	'content-length',
	'host',
	'transfer-encoding',
	'connection',
	'keep-alive',
	'upgrade',
	'te',
	'trailer',
	'expect',
	'user-agent',
	'x-site-delivery-id',
];
/** ajv patterns have no case-insensitive flag: `host` becomes `[hH][oO][sS][tT]`. */
const RESERVED_HEADER_PATTERN = `^(?:${RESERVED_HEADERS.map((name) => name.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`)).join('|')})$`;

const settingsSchema = {
	type: 'object',
	required: [
		'google_code',
		'noindex',
		'statistics_iframe',
		'contact_form_webhook_url',
		'contact_form_webhook_headers',
	],
	properties: {
		google_code: { type: ['string', 'null'] },
		noindex: { type: 'integer', enum: [0, 1] },
		statistics_iframe: { type: ['string', 'null'] },
		contact_form_webhook_url: {
			type: ['string', 'null'],
			'x-extension': true,
			'x-contract-decided': true,
		},
		contact_form_webhook_headers: {
			type: ['object', 'null'],
			additionalProperties: { type: 'string' },
			'x-extension': true,
			'x-contract-decided': true,
		},
	},
} as const;

export const settingsResponses = {
	200: {
		type: 'object',
		required: ['settings'],
		properties: { message: { type: 'string' }, settings: settingsSchema },
	},
	...errorResponses,
} as const;

/** GET /api/settings: the settings and the test webhooks that get copies now (without headers). */
export const readSettingsResponses = {
	200: {
		type: 'object',
		required: ['settings', 'test_webhooks'],
		properties: {
			settings: settingsSchema,
			test_webhooks: {
				type: 'array',
				description:
					'the live test webhooks (POST /api/contact-form/test-webhooks): each gets a copy of every new submission',
				items: {
					type: 'object',
					required: ['url', 'expires_at'],
					properties: {
						url: { type: 'string' },
						expires_at: { type: 'string', format: 'date-time' },
					},
				},
			},
		},
	},
	...errorResponses,
} as const;

/** Partial: a field not sent keeps its value. */
export const settingsBody = Type.Object(
	{
		google_code: Type.Optional(
			Type.Unsafe<string | null>({
				type: ['string', 'null'],
				maxLength: 65536,
				description: 'analytics code; null clears',
			}),
		),
		noindex: Type.Optional(flagSchema('1 turns the flag on (booleans accepted)')),
		statistics_iframe: Type.Optional(
			Type.Unsafe<string | null>({
				type: ['string', 'null'],
				maxLength: 65536,
				description: 'statistics iframe (HTML or URL); null clears',
			}),
		),
		contact_form_webhook_url: Type.Optional(
			Type.Unsafe<string | null>({
				type: ['string', 'null'],
				// In the schema (not only in the handler) so it is reported together with every other bad
				// field. One way to match: `[^\\s/?#]+\\S*` (two overlapping runs) backtracked quadratically.
				...patternWithinLength({
					maxLength: 2048,
					pattern: '^(?:https?://[^\\s/?#]\\S*)?$',
					problem: 'must be an http(s) URL, null or ""',
				}),
				description: 'where contact-form submissions are POSTed: an http(s) URL; null or "" clears',
				'x-extension': true,
				'x-contract-decided': true,
			}),
		),
		contact_form_webhook_headers: Type.Optional(
			Type.Unsafe<Record<string, string> | null>({
				type: ['object', 'null'],
				maxProperties: 50,
				propertyNames: {
					allOf: [
						{ pattern: HEADER_NAME, 'x-problem': 'is not a valid header name' },
						{
							not: { pattern: RESERVED_HEADER_PATTERN },
							'x-problem': 'is set by the server and cannot be configured',
						},
					],
				},
				additionalProperties: {
					type: 'string',
					// What Node's HTTP client sends: tab, printable ASCII and Latin-1; nothing else would ever go out.
					...patternWithinLength({
						maxLength: 8192,
						pattern: '^[\\t\\u0020-\\u007e\\u0080-\\u00ff]*$',
						problem:
							'must be a string of printable ASCII or Latin-1 characters (no line breaks or other control characters), at most 8192 characters',
					}),
				},
				description: 'extra headers on each webhook POST (e.g. a shared secret); null clears',
				'x-extension': true,
				'x-contract-decided': true,
			}),
		),
	},
	{ additionalProperties: false },
);
