import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { tenantOf } from '../context';
import { nowIso } from '../clock';
import { sitemapBody, sitemapResponses } from '../schemas/pages';

const sitemapRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, config } = app.site;

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

export default sitemapRoutes;
