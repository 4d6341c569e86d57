import { Type } from '@sinclair/typebox';
import {
	flagSchema,
	localeSchema,
	messageBody,
	pageSchema,
	pageUrlQuerySchema,
	pageUrlSchema,
	paginatedList,
	paginationQueryProperties,
} from './common';

// Unknown query parameters are ignored (bodies, in contrast, reject unknown fields).
export const listPagesQuery = Type.Object({
	...paginationQueryProperties,
	url: Type.Optional(pageUrlQuerySchema),
	locale: Type.Optional(Type.String({ maxLength: 35 })),
	draft: Type.Optional(Type.Boolean({ description: 'true/false (1/0 accepted)' })),
	search: Type.Optional(
		Type.String({
			maxLength: 255,
			description: 'a text fragment of the name or url, case-insensitive; empty lists every page',
			'x-extension': true,
		}),
	),
});

export const listPagesResponses = { 200: paginatedList(pageSchema) } as const;

export const createPageBody = Type.Object(
	{
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
	},
	{ additionalProperties: false },
);

/** The answer of a page create or content update: a message and the page. */
export const pageAnswer = {
	type: 'object',
	required: ['message', 'page'],
	properties: { message: { type: 'string' }, page: pageSchema },
} as const;

export const createPageResponses = { 201: pageAnswer } as const;

export const deletePageBody = Type.Object(
	{ url: pageUrlSchema, permanently: Type.Optional(flagSchema('1 (or true) erases the page')) },
	{ additionalProperties: false },
);

export const deletePageResponses = { 200: messageBody } as const;
