import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound, conflict } from '../errors/api-error';
import { pageUrlOrThrow } from '../lib/page-url';
import type { PageFilter } from '../db/pages';
import { tenantOf } from '../context';
import { asBoolean, pagination, paginationMetaFor } from '../schemas/common';
import {
	createPageBody,
	createPageResponses,
	deletePageBody,
	deletePageResponses,
	listPagesQuery,
	listPagesResponses,
} from '../schemas/pages';

const pageRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store } = app.site;

	app.get(
		'/api/pages',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'listPages',
				summary: 'List pages (not deleted ones), in creation order',
				querystring: listPagesQuery,
				response: listPagesResponses,
			},
		},
		async (request) => {
			const { locale, draft } = request.query;
			// An extension: with --no-extensions ignored, as any unknown query parameter.
			const search = app.site.config.extensions ? request.query.search : undefined;
			const url = request.query.url === undefined ? undefined : pageUrlOrThrow(request.query.url);
			const { page, perPage, offset } = pagination(request.query);
			const filter: PageFilter = { url, locale, draft, search };
			const { pages, total } = store.pages.list(tenantOf(request).pk, filter, perPage, offset);
			return { data: pages, meta: paginationMetaFor(page, perPage, total) };
		},
	);

	app.post(
		'/api/page',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'createPage',
				summary: 'Create a page',
				description:
					'The url of a deleted (archived) page may be used again: the new page replaces the archived one.',
				body: createPageBody,
				response: createPageResponses,
			},
		},
		async (request, reply) => {
			const body = request.body;
			const url = pageUrlOrThrow(body.url);
			const page = store.pages.create(tenantOf(request).pk, {
				url,
				name: body.name,
				locale: body.locale,
				meta_title: body.meta_title ?? null,
				meta_description: body.meta_description ?? null,
				draft: asBoolean(body.draft, false),
			});
			if (!page) throw conflict(`A page with url "${url}" already exists.`);
			return reply.code(201).send({ message: 'Page created successfully.', page });
		},
	);

	app.delete(
		'/api/page',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'deletePage',
				summary:
					'Delete a page: by default archived (out of listings and sitemap, data kept); permanently: 1 erases it',
				description:
					'permanently also erases an already archived page. An unknown url, or a default delete of an archived page, is a 404.',
				body: deletePageBody,
				response: deletePageResponses,
			},
		},
		async (request) => {
			const url = pageUrlOrThrow(request.body.url);
			if (
				!store.pages.delete(tenantOf(request).pk, url, asBoolean(request.body.permanently, false))
			) {
				throw notFound(`Page "${url}" not found.`);
			}
			return { message: 'Page deleted successfully.' };
		},
	);
};

export default pageRoutes;
