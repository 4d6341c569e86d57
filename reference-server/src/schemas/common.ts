/**
 * Shared JSON Schemas. Bodies are validated strictly (no coercion, no unknown fields); `x-extension`
 * marks what goes beyond service-api.md (it is an annotation: ajv ignores it, the OpenAPI doc keeps it).
 */

export const errorBody = {
	type: 'object',
	required: ['error', 'message'],
	properties: {
		error: { type: 'string', description: 'machine-readable code, e.g. validation_failed' },
		message: { type: 'string', description: 'one human sentence' },
		details: { description: 'for validation_failed: an array of {field, problem}, one per bad field' },
	},
} as const;

/** Error responses every route may give; added to each route's response map. */
export const errorResponses = {
	'4xx': { description: 'The request is invalid; fix it, do not retry as is.', ...errorBody },
	'5xx': { description: 'Transient failure; retry with backoff.', ...errorBody },
} as const;

export const messageBody = {
	type: 'object',
	required: ['message'],
	properties: { message: { type: 'string' } },
} as const;

export const tenantIdSchema = {
	type: 'string',
	minLength: 1,
	maxLength: 63,
	pattern: '^[a-z0-9][a-z0-9_-]{0,62}$',
	description: '1 to 63 characters of a-z, 0-9, -, _, starting with a letter or digit',
	'x-problem': 'must be 1 to 63 characters of a-z, 0-9, - and _, starting with a letter or digit',
} as const;

/** Labels of 1-63 letters/digits/hyphens, not starting or ending with a hyphen; at least two labels; at most 253 characters. */
export const fqdnSchema = {
	type: ['string', 'null'],
	maxLength: 253,
	pattern: '^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$',
	description: 'a fully qualified domain name such as www.example.com; null for none',
	'x-problem': 'must be a domain name such as www.example.com (or null)',
} as const;

/**
 * A site path. `//host` and `/\\host` are refused (a site that renders the url as a link would send
 * visitors to another host: an open redirect), and so are control characters (NUL included) and the
 * invisible bidirectional marks and overrides that make a url read other than it is.
 */
export const pageUrlSchema = {
	type: 'string',
	minLength: 1,
	maxLength: 2048,
	pattern: '^/(?![/\\\\])[^\\s\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]*$',
	description:
		'site path, the page key: starts with a single / (not // or /\\), no whitespace, control or bidirectional-control characters, at most 2048 characters',
	'x-problem': 'must be a site path: a string starting with a single / (not // or /\\), without whitespace, control or bidirectional-control characters, at most 2048 characters',
} as const;

export const localeSchema = {
	type: 'string',
	maxLength: 35,
	pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
	description: 'language tag such as en or en-US',
	'x-problem': 'must be a language tag such as en or en-US',
} as const;

/** Booleans also arrive as 0/1 from clients that follow service-api.md's integer flags. */
export const flagSchema = {
	type: ['boolean', 'integer'],
	enum: [true, false, 0, 1],
} as const;

export const templatesSchema = {
	type: 'array',
	items: { type: 'object', additionalProperties: true },
	description: 'content blocks, in order',
} as const;

export const bannerSchema = {
	type: ['object', 'null'],
	additionalProperties: true,
} as const;

export const pageSchema = {
	type: 'object',
	required: ['url', 'name', 'locale', 'meta_title', 'meta_description', 'draft', 'templates', 'banner', 'created_at', 'updated_at'],
	properties: {
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
	},
} as const;

export const paginationQueryProperties = {
	// A bound keeps (page - 1) * per_page a safe integer and a valid SQLite OFFSET.
	page: { type: 'integer', minimum: 1, maximum: 1_000_000_000, default: 1, description: '1-based page number, at most 1,000,000,000' },
	per_page: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
} as const;

export const paginationMeta = {
	type: 'object',
	required: ['page', 'per_page', 'total', 'last_page'],
	properties: {
		page: { type: 'integer' },
		per_page: { type: 'integer' },
		total: { type: 'integer' },
		last_page: { type: 'integer', description: 'max(1, ceil(total / per_page))' },
	},
} as const;

export function paginationMetaFor(page: number, perPage: number, total: number) {
	return { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}

export const adminSecurity = [{ adminToken: [] }];
export const tenantSecurity = [{ tenantToken: [] }];

/** Accept 0/1 where a boolean is meant. */
export function asBoolean(value: boolean | number | undefined, fallback: boolean): boolean {
	return value === undefined ? fallback : value === true || value === 1;
}
