import { Type } from '@sinclair/typebox';
import { flagSchema, patternWithinLength, responseObject, strictObject } from './common';

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

/*
 * A webhook URL as the server can send to it: the schema states exactly what the server's URL parser
 * (WHATWG, Node's `new URL`) takes, so no value the OpenAPI document allows is refused as "not a URL".
 * Narrower than WHATWG on purpose: lower-case http(s) scheme; a host that is a name of ASCII labels
 * (the last starting with a letter, as one ending in a number is parsed as an IPv4 address), a dotted IPv4 address or a
 * bracketed IPv6 address (RFC 3986's forms); a port of 1-65535; then a path, query or fragment
 * without whitespace. Every quantified group is bounded or ends at a character it cannot contain, so
 * the pattern is linear (test/reliability/linear-patterns.test.ts).
 */
const USERINFO = "[A-Za-z0-9._~!$&'()*+,;=:%-]*@";
const LABEL_REST = '(?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = `(?:[A-Za-z0-9]${LABEL_REST}\\.)*[A-Za-z]${LABEL_REST}`;
const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${DEC_OCTET}(?:\\.${DEC_OCTET}){3}`;
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
/** `h16:` from min to max times ('' for none). */
const pieces = (min: number, max: number) =>
	max === 0 ? '' : `(?:${H16}:){${min === max ? min : `${min},${max}`}}`;
/** RFC 3986 section 3.2.2's IPv6address: the nine ways to place `::` (or none). */
const IPV6 = [
	`${pieces(6, 6)}${LS32}`,
	`::${pieces(5, 5)}${LS32}`,
	...[0, 1, 2, 3, 4].map((n) => `(?:${pieces(0, n)}${H16})?::${pieces(4 - n, 4 - n)}${LS32}`),
	`(?:${pieces(0, 5)}${H16})?::${H16}`,
	`(?:${pieces(0, 6)}${H16})?::`,
].join('|');
const PORT =
	'(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
export const WEBHOOK_URL = `https?://(?:${USERINFO})?(?:${HOST_NAME}|${IPV4}|\\[(?:${IPV6})\\])(?::${PORT})?(?:[/?#]\\S*)?`;
export const WEBHOOK_URL_WORDS =
	'an http(s) URL (lower-case scheme; a host name of ASCII letters, digits and hyphens, whose last label starts with a letter, or an IPv4 or [IPv6] address; a port of 1-65535; no whitespace), at most 2048 characters';
/** The rule applied when the URL is set, which a schema cannot state: where it may point. */
export const WEBHOOK_TARGET_WORDS =
	"Refused when it is set (400, naming the field), though the pattern allows it: an xn-- label that is not valid punycode (an internationalised name is sent in its valid punycode form); a host that is or resolves to a loopback, private, link-local, multicast or other special-purpose address, a cloud metadata address or this server itself, unless the server's --webhook-allow opens it; the delivery checks the resolved addresses again.";

const settingsSchema = responseObject({
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
});

/** A test webhook as shown (never its headers: they carry a secret). */
export const testWebhookSchema = responseObject({
	url: { type: 'string' },
	expires_at: { type: 'string', format: 'date-time' },
});

export const settingsResponses = {
	200: {
		type: 'object',
		required: ['settings'],
		properties: { message: { type: 'string' }, settings: settingsSchema },
	},
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
				items: testWebhookSchema,
			},
		},
	},
} as const;

/** Partial: a field not sent keeps its value. */
export const settingsBody = strictObject({
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
			// field; "" clears, like null.
			...patternWithinLength({
				maxLength: 2048,
				pattern: `^(?:${WEBHOOK_URL})?$`,
				problem: `must be ${WEBHOOK_URL_WORDS}, null or ""`,
			}),
			description: `where contact-form submissions are POSTed: ${WEBHOOK_URL_WORDS}; null or "" clears. ${WEBHOOK_TARGET_WORDS}`,
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
});
