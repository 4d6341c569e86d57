import type { FastifyInstance } from 'fastify';
import { tenantOf } from '../context';
import { nowIso } from '../clock';
import { errorResponses, localeSchema, tenantSecurity } from '../schemas/common';

export default async function sitemapRoutes(app: FastifyInstance) {
	const { store } = app.site;

	app.post<{ Body: { locale?: string } }>(
		'/api/sitemap',
		{
			onRequest: app.requireTenant,
			// A bodiless POST means "no filter", like {}.
			preValidation: async (request) => {
				if (request.body === undefined || request.body === null) request.body = {};
			},
			schema: {
				summary: 'The sitemap: published pages (not draft, not deleted), ordered by url',
				tags: ['tenant'],
				security: tenantSecurity,
				body: { type: 'object', additionalProperties: false, properties: { locale: localeSchema } },
				response: {
					200: {
						type: 'object',
						required: ['generated_at', 'pages'],
						properties: {
							generated_at: { type: 'string', format: 'date-time' },
							pages: {
								type: 'array',
								items: {
									type: 'object',
									required: ['url', 'name', 'locale', 'updated_at'],
									properties: {
										url: { type: 'string' },
										name: { type: 'string' },
										locale: { type: 'string' },
										updated_at: { type: 'string', format: 'date-time' },
									},
								},
							},
						},
					},
					...errorResponses,
				},
			},
		},
		async (request) => ({ generated_at: nowIso(), pages: store.pages.sitemap(tenantOf(request).pk, request.body.locale) }),
	);
}
