import { Type } from '@sinclair/typebox';
import {
	bannerSchema,
	flagSchema,
	localeSchema,
	messageBody,
	pageSchema,
	pageUrlQuerySchema,
	pageUrlSchema,
	paginatedList,
	paginationQueryProperties,
	responseObject,
	strictObject,
	templatesSchema,
} from './common';

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
