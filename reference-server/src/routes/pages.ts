import type { FastifyInstance } from 'fastify';
import { conflict, notFound } from '../errors/api-error';
import type { PageFilter } from '../db/pages';
import { tenantOf } from '../context';
import {
	asBoolean,
	errorResponses,
	flagSchema,
	localeSchema,
	messageBody,
	pageSchema,
	pageUrlSchema,
	paginationMeta,
	paginationMetaFor,
	paginationQueryProperties,
	tenantSecurity,
} from '../schemas/common';

interface ListQuery {
	page: number;
	per_page: number;
	url?: string;
	locale?: string;
	draft?: boolean;
	search?: string;
}
interface CreateBody {
	url: string;
	name: string;
	locale: string;
	meta_title?: string | null;
	meta_description?: string | null;
	draft?: boolean | 0 | 1;
}
interface DeleteBody {
	url: string;
	permanently?: boolean | 0 | 1;
}

export default async function pageRoutes(app: FastifyInstance) {
	const { store } = app.site;

	app.get<{ Querystring: ListQuery }>(
		'/api/pages',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'List pages (not deleted ones), in creation order',
				tags: ['tenant'],
				security: tenantSecurity,
				// Unknown query parameters are ignored (bodies, in contrast, reject unknown fields).
				querystring: {
					type: 'object',
					properties: {
						...paginationQueryProperties,
						url: { type: 'string', maxLength: 2048, description: 'exact url' },
						locale: { type: 'string', maxLength: 35 },
						draft: { type: 'boolean', description: 'true/false (1/0 accepted)' },
						search: {
							type: 'string',
							maxLength: 255,
							description: 'a text fragment of the name or url, case-insensitive; empty lists every page',
							'x-extension': true,
						},
					},
				},
				response: {
					200: {
						type: 'object',
						required: ['data', 'meta'],
						properties: { data: { type: 'array', items: pageSchema }, meta: paginationMeta },
					},
					...errorResponses,
				},
			},
		},
		async (request, reply) => {
			const { page, per_page: perPage, url, locale, draft, search } = request.query;
			const filter: PageFilter = { url, locale, draft, search };
			// Rendered by the route's own response serializer, so a cached answer is the same text.
			const body = store.pages.listRendered(tenantOf(request).pk, filter, perPage, (page - 1) * perPage, (pages, total) =>
				String(reply.serialize({ data: pages, meta: paginationMetaFor(page, perPage, total) })),
			);
			return reply.type('application/json; charset=utf-8').send(body);
		},
	);

	app.post<{ Body: CreateBody }>(
		'/api/page',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Create a page',
				description: 'The url of a deleted (archived) page may be used again: the new page replaces the archived one.',
				tags: ['tenant'],
				security: tenantSecurity,
				body: {
					type: 'object',
					required: ['name', 'url', 'locale'],
					additionalProperties: false,
					properties: {
						name: { type: 'string', minLength: 1, maxLength: 255 },
						url: pageUrlSchema,
						locale: localeSchema,
						meta_title: { type: ['string', 'null'], maxLength: 1000 },
						meta_description: { type: ['string', 'null'], maxLength: 5000 },
						draft: { ...flagSchema, description: 'boolean; 0/1 accepted; default false' },
					},
				},
				response: {
					201: {
						type: 'object',
						required: ['message', 'page'],
						properties: { message: { type: 'string' }, page: pageSchema },
					},
					...errorResponses,
				},
			},
		},
		async (request, reply) => {
			const body = request.body;
			const page = store.pages.create(tenantOf(request).pk, {
				url: body.url,
				name: body.name,
				locale: body.locale,
				meta_title: body.meta_title ?? null,
				meta_description: body.meta_description ?? null,
				draft: asBoolean(body.draft, false),
			});
			if (!page) throw conflict(`A page with url "${body.url}" already exists.`);
			return reply.code(201).send({ message: 'Page created successfully.', page });
		},
	);

	app.delete<{ Body: DeleteBody }>(
		'/api/page',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: 'Delete a page: by default archived (out of listings and sitemap, data kept); permanently: 1 erases it',
				description: 'permanently also erases an already archived page. An unknown url, or a default delete of an archived page, is a 404.',
				tags: ['tenant'],
				security: tenantSecurity,
				body: {
					type: 'object',
					required: ['url'],
					additionalProperties: false,
					properties: { url: pageUrlSchema, permanently: { ...flagSchema, description: '1 (or true) erases the page' } },
				},
				response: { 200: messageBody, ...errorResponses },
			},
		},
		async (request) => {
			const { url } = request.body;
			if (!store.pages.delete(tenantOf(request).pk, url, asBoolean(request.body.permanently, false))) {
				throw notFound(`Page "${url}" not found.`);
			}
			return { message: 'Page deleted successfully.' };
		},
	);
}
