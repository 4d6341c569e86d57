import { Type } from '@sinclair/typebox';
import { PAGE_URL_MAX_LENGTH, PAGE_URL_PATTERN } from '../lib/page-url';
import {
	flagSchema,
	messageBody,
	paginatedList,
	paginationQueryProperties,
	patternWithinLength,
	responseObject,
	strictObject,
} from './common';

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
	"starts with a single / (not // or /\\), no whitespace, control, invisible (any of Unicode's Default_Ignorable_Code_Point: variation selectors, tag characters, fillers, invisible operators…) or bidirectional-control characters, no query (?) or fragment (#), no . or .. segments (\\ counts as /), at most 2048 characters. Also refused (400 naming the field) though the pattern allows them: those characters percent-encoded (%3F, %20, %5C, %E2%80%AE, %2e%2e segments…), escapes that are not UTF-8 or encode another escape (%2541, %252e), and compatibility characters such as fullwidth letters (the address must read as what it is).";

const pageUrlSchema = Type.String({
	minLength: 1,
	...pageUrlRule,
	description: `site path, the page key: ${PAGE_URL_RULE_TEXT} Stored in one form, which names the page again as it is: percent-escapes decoded, Unicode NFC, lower case, no trailing slash.`,
});

/** A page url to look up, as typed: the same rule, compared in the stored form (lib/page-url.ts). */
const pageUrlQuerySchema = Type.String({
	...pageUrlRule,
	description: `exact url, compared in the stored form (percent-escapes decoded, NFC, lower case, no trailing slash); the same rule as a page's url: ${PAGE_URL_RULE_TEXT}`,
});

const localeSchema = Type.String({
	...patternWithinLength({
		maxLength: 35,
		pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
		problem: 'must be a language tag such as en or en-US',
	}),
	description: 'language tag such as en or en-US',
});

const templatesSchema = Type.Unsafe<Record<string, unknown>[]>({
	type: 'array',
	items: { type: 'object', additionalProperties: true },
	description: 'content blocks, in order',
});

const bannerSchema = Type.Unsafe<Record<string, unknown> | null>({
	type: ['object', 'null'],
	additionalProperties: true,
});

const pageSchema = responseObject({
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

// Unknown query parameters are ignored (bodies, in contrast, reject unknown fields).
export const listPagesQuery = Type.Object({
	...paginationQueryProperties,
	url: Type.Optional(pageUrlQuerySchema),
	locale: Type.Optional(Type.String({ maxLength: 35 })),
	draft: Type.Optional(flagSchema('true/false (1/0 accepted)')),
	search: Type.Optional(
		Type.String({
			maxLength: 255,
			description: 'a text fragment of the name or url, case-insensitive; empty lists every page',
			'x-extension': true,
		}),
	),
});

export const listPagesResponses = { 200: paginatedList(pageSchema) } as const;

export const createPageBody = strictObject({
	name: Type.String({ minLength: 1, maxLength: 255 }),
	url: pageUrlSchema,
	locale: localeSchema,
	meta_title: Type.Optional(
		Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 1000 }),
	),
	meta_description: Type.Optional(
		Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 5000 }),
	),
	draft: Type.Optional(flagSchema('boolean; 0/1 accepted; default false')),
});

/** The answer of a page create or content update: a message and the page. */
const pageAnswer = responseObject({ message: { type: 'string' }, page: pageSchema });

export const createPageResponses = { 201: pageAnswer } as const;

export const deletePageBody = strictObject({
	url: pageUrlSchema,
	permanently: Type.Optional(flagSchema('1 (or true) erases the page')),
});

export const deletePageResponses = { 200: messageBody } as const;

export const contentBody = strictObject({
	url: pageUrlSchema,
	templates: templatesSchema,
	banner: Type.Optional(bannerSchema),
	if_updated_at: Type.Optional(
		Type.String({
			minLength: 1,
			maxLength: 64,
			description:
				"A precondition: the page's updated_at as the caller last read it. The update is made only if the page still has it; otherwise 412 precondition_failed, nothing written, and details.updated_at holds the page's current one.",
			'x-extension': true,
		}),
	),
});

export const contentResponses = { 200: pageAnswer } as const;

export const sitemapBody = strictObject({ locale: Type.Optional(localeSchema) });

export const sitemapResponses = {
	200: {
		type: 'object',
		required: ['generated_at', 'pages'],
		properties: {
			generated_at: { type: 'string', format: 'date-time' },
			tenant_id: {
				type: 'string',
				description: 'the tenant the token reached',
				'x-extension': true,
			},
			pages: {
				type: 'array',
				items: responseObject({
					url: { type: 'string' },
					name: { type: 'string' },
					locale: { type: 'string' },
					updated_at: { type: 'string', format: 'date-time' },
				}),
			},
		},
	},
} as const;
