import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, conflict, notFound } from '../errors/api-error';
import { nowIso } from '../clock';
import { pageUrlOrThrow } from '../lib/page-url';
import type { PageFilter } from '../db/pages';
import { tenantOf } from '../context';
import { asBoolean, pagination, paginationMetaFor } from '../schemas/common';
import {
	contentBody,
	contentResponses,
	createPageBody,
	createPageResponses,
	deletePageBody,
	deletePageResponses,
	listPagesQuery,
	listPagesResponses,
	sitemapBody,
	sitemapResponses,
} from '../schemas/pages';

/** Pages: listing, creation, deletion, content and the sitemap. */
/** 412: the page is no longer at the version the caller read; details say which it is at now. */
function pageChanged(url: string, expected: string, current: string): ApiError {
	return new ApiError(
		412,
		'precondition_failed',
		`Page "${url}" changed since ${expected} (now updated_at ${current}); nothing was written.`,
		{ updated_at: current },
	);
}

const pageRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, config } = app.site;

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
			const search = config.extensions ? request.query.search : undefined;
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

	app.put(
		'/api/content',
		{
			onRequest: app.requireTenant,
			schema: {
				operationId: 'putPageContent',
				summary: "Replace a page's content (templates, and the banner when given)",
				description:
					'banner absent keeps the current banner; null removes it. Extension: if_updated_at makes the update conditional on the page being unchanged (412 precondition_failed otherwise, nothing written).',
				body: contentBody,
				response: contentResponses,
			},
		},
		async (request) => {
			const { templates, banner, if_updated_at: ifUpdatedAt } = request.body;
			const url = pageUrlOrThrow(request.body.url);
			const pk = tenantOf(request).pk;
			const updated = store.pages.updateContent(pk, url, templates, banner, ifUpdatedAt);
			if (!updated) throw notFound(`Page "${url}" not found.`);
			if (updated.stale) throw pageChanged(url, ifUpdatedAt as string, updated.stale.updated_at);
			return { message: 'Content updated successfully.', page: updated.page };
		},
	);

	app.post(
		'/api/sitemap',
		{
			onRequest: app.requireTenant,
			// Reads only: an Idempotency-Key is ignored and the answer (up to megabytes) is not stored.
			config: { idempotency: false },
			// A bodiless POST means "no filter", like {}.
			preValidation: async (request) => {
				if (request.body === undefined || request.body === null) request.body = {};
			},
			schema: {
				operationId: 'getSitemap',
				summary: 'The sitemap: published pages (not draft, not deleted), ordered by url',
				body: sitemapBody,
				response: sitemapResponses,
			},
		},
		async (request) => ({
			generated_at: nowIso(),
			// An extension: a described service says nothing of the tenant here.
			...(config.extensions ? { tenant_id: tenantOf(request).id } : {}),
			pages: store.pages.sitemap(tenantOf(request).pk, request.body.locale),
		}),
	);
};

export default pageRoutes;
