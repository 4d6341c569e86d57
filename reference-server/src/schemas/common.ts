import { type TProperties, Type } from '@sinclair/typebox';

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
 * and end at a dot), checked by test/reliability/linear-patterns.test.ts at the package's root.
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

/** A flag: booleans also arrive as 0/1 from clients that follow service-api.md's integer flags. */
export const flagSchema = (description: string, annotations: Record<string, unknown> = {}) =>
	Type.Unsafe<boolean | 0 | 1>({
		type: ['boolean', 'integer'],
		enum: [true, false, 0, 1],
		description,
		...annotations,
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
