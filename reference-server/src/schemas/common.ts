import { type TProperties, Type } from '@sinclair/typebox';
import { PAGE_URL_MAX_LENGTH, PAGE_URL_PATTERN } from '../lib/page-url';

/**
 * Shared JSON Schemas. Bodies are validated strictly (no coercion, no unknown fields); `x-extension`
 * marks what goes beyond service-api.md (it is an annotation: ajv ignores it, the OpenAPI doc keeps it).
 *
 * What a request carries (body, query, params) is written with TypeBox: one definition is both the
 * JSON Schema Fastify validates with and the TypeScript type of `request.body` (the routes use
 * @fastify/type-provider-typebox). A schema TypeBox has no builder for (a type array such as
 * `['string', 'null']`, kept so the OpenAPI document and ajv's messages stay as they are) is written
 * as JSON Schema in `Type.Unsafe<T>`. Response schemas are plain JSON Schema: they only shape the answer.
 */

/** A JSON object whose every property is always there (the shape of most answers). */
export function responseObject<P extends Record<string, unknown>>(properties: P) {
	return { type: 'object', required: Object.keys(properties), properties } as const;
}

/** A request body: these fields, no others (an unknown field is a 400, not silently dropped). */
export function strictObject<P extends TProperties>(properties: P) {
	return Type.Object(properties, { additionalProperties: false });
}

const errorBody = {
	type: 'object',
	required: ['error', 'message'],
	properties: {
		error: { type: 'string', description: 'machine-readable code, e.g. validation_failed' },
		message: { type: 'string', description: 'one human sentence' },
		details: {
			description: 'for validation_failed: an array of {field, problem}, one per bad field',
		},
	},
} as const;

/** Error responses every route may give; plugins/errors.ts adds them to each route's response map. */
export const errorResponses = {
	'4xx': { description: 'The request is invalid; fix it, do not retry as is.', ...errorBody },
	'5xx': { description: 'Transient failure; retry with backoff.', ...errorBody },
} as const;

export const messageBody = responseObject({ message: { type: 'string' } });

/**
 * A pattern that runs only on a string within maxLength. ajv reports every bad keyword (allErrors), so
 * a plain `{ maxLength, pattern }` still runs the pattern over a megabyte string that maxLength has
 * already refused (a 32,000-character webhook URL held the event loop for seconds). Under
 * `if`, an over-long string gets the maxLength error alone. Every pattern in schemas/ is also linear:
 * no quantified group can match the same text two ways (the fqdn's labels are bounded to 63 characters
 * and end at a dot), checked by test/security/adversarial-strings.test.ts.
 */
export function patternWithinLength(options: {
	maxLength: number;
	pattern: string;
	problem: string;
}) {
	return {
		maxLength: options.maxLength,
		if: { maxLength: options.maxLength },
		then: { pattern: options.pattern, 'x-problem': options.problem },
		'x-problem': options.problem,
	};
}

export const tenantIdSchema = Type.String({
	minLength: 1,
	...patternWithinLength({
		maxLength: 63,
		pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
		problem: 'must be 1 to 63 characters of a-z, 0-9, - and _, starting with a letter or digit',
	}),
	description: '1 to 63 characters of a-z, 0-9, -, _, starting with a letter or digit',
});

/** Labels of 1-63 letters/digits/hyphens, not starting or ending with a hyphen; at least two labels; at most 253 characters. */
export const fqdnSchema = Type.Unsafe<string | null>({
	type: ['string', 'null'],
	...patternWithinLength({
		maxLength: 253,
		pattern:
			'^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
		problem: 'must be a domain name such as www.example.com (or null)',
	}),
	description: 'a fully qualified domain name such as www.example.com; null for none',
});

/**
 * A site path, the page key. The pattern is lib/page-url.ts's own (PAGE_URL_PATTERN): `//host` and
 * `/\host` (an open redirect where a site renders the url as a link), control, invisible and
 * bidirectional-control characters, a query or fragment, `.`/`..` segments. What a pattern cannot say
 * (the same characters percent-encoded, escapes encoded twice, compatibility forms such as fullwidth
 * letters) lib/page-url.ts refuses at run time, as the description says.
 */
const pageUrlRule = patternWithinLength({
	maxLength: PAGE_URL_MAX_LENGTH,
	pattern: PAGE_URL_PATTERN,
	problem:
		'must be a site path: a string starting with a single / (not // or /\\), without whitespace, control, invisible or bidirectional-control characters, ? or #, or . and .. segments, at most 2048 characters',
});

const PAGE_URL_RULE_TEXT =
	'starts with a single / (not // or /\\), no whitespace, control, invisible or bidirectional-control characters, no query (?) or fragment (#), no . or .. segments (\\ counts as /), at most 2048 characters. Also refused (400 naming the field) though the pattern allows them: those characters percent-encoded (%3F, %20, %5C, %E2%80%AE, %2e%2e segments…), escapes that are not UTF-8 or encode another escape (%2541, %252e), and compatibility characters such as fullwidth letters (the address must read as what it is).';

export const pageUrlSchema = Type.String({
	minLength: 1,
	...pageUrlRule,
	description: `site path, the page key: ${PAGE_URL_RULE_TEXT} Stored in one form, which names the page again as it is: percent-escapes decoded, Unicode NFC, lower case, no trailing slash.`,
});

/** A page url to look up, as typed: the same rule, compared in the stored form (lib/page-url.ts). */
export const pageUrlQuerySchema = Type.String({
	...pageUrlRule,
	description: `exact url, compared in the stored form (percent-escapes decoded, NFC, lower case, no trailing slash); the same rule as a page's url: ${PAGE_URL_RULE_TEXT}`,
});

export const localeSchema = Type.String({
	...patternWithinLength({
		maxLength: 35,
		pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
		problem: 'must be a language tag such as en or en-US',
	}),
	description: 'language tag such as en or en-US',
});

/** A flag: booleans also arrive as 0/1 from clients that follow service-api.md's integer flags. */
export const flagSchema = (description: string, annotations: Record<string, unknown> = {}) =>
	Type.Unsafe<boolean | 0 | 1>({
		type: ['boolean', 'integer'],
		enum: [true, false, 0, 1],
		description,
		...annotations,
	});

export const templatesSchema = Type.Unsafe<Record<string, unknown>[]>({
	type: 'array',
	items: { type: 'object', additionalProperties: true },
	description: 'content blocks, in order',
});

export const bannerSchema = Type.Unsafe<Record<string, unknown> | null>({
	type: ['object', 'null'],
	additionalProperties: true,
});

export const pageSchema = responseObject({
	url: { type: 'string' },
	name: { type: 'string' },
	locale: { type: 'string' },
	meta_title: { type: ['string', 'null'] },
	meta_description: { type: ['string', 'null'] },
	draft: { type: 'boolean' },
	templates: templatesSchema,
	banner: bannerSchema,
	created_at: { type: 'string', format: 'date-time' },
	updated_at: { type: 'string', format: 'date-time' },
});

const PAGE_DEFAULT = 1;
const PER_PAGE_DEFAULT = 20;

/** Optional in the query; ajv fills in the defaults (useDefaults), so `pagination()` always finds them. */
export const paginationQueryProperties = {
	// A bound keeps (page - 1) * per_page a safe integer and a valid SQLite OFFSET.
	page: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: 1_000_000_000,
			default: PAGE_DEFAULT,
			description: '1-based page number, at most 1,000,000,000',
		}),
	),
	per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: PER_PAGE_DEFAULT })),
};

/** The page asked for, its size and the rows to skip. */
export function pagination(query: { page?: number; per_page?: number }) {
	const page = query.page ?? PAGE_DEFAULT;
	const perPage = query.per_page ?? PER_PAGE_DEFAULT;
	return { page, perPage, offset: (page - 1) * perPage };
}

const paginationMeta = responseObject({
	page: { type: 'integer' },
	per_page: { type: 'integer' },
	total: { type: 'integer' },
	last_page: { type: 'integer', description: 'max(1, ceil(total / per_page))' },
});

/** A listing's answer without pages: every item in `data`. */
export function dataList<T extends Record<string, unknown>>(items: T) {
	return responseObject({ data: { type: 'array', items } });
}

/** A listing's answer: one page of `items` and where it stands. */
export function paginatedList<T extends Record<string, unknown>>(items: T) {
	return responseObject({ data: { type: 'array', items }, meta: paginationMeta });
}

export function paginationMetaFor(page: number, perPage: number, total: number) {
	return { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

/** Accept 0/1 where a boolean is meant. */
export function asBoolean(value: boolean | number | undefined, fallback: boolean): boolean {
	return value === undefined ? fallback : value === true || value === 1;
}
