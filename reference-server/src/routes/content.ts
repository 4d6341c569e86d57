import type { FastifyInstance } from 'fastify';
import { notFound } from '../plugins/errors';
import { tenantOf } from '../context';
import { bannerSchema, errorResponses, pageSchema, pageUrlSchema, templatesSchema, tenantSecurity } from '../schemas/common';

interface ContentBody {
	url: string;
	templates: Record<string, unknown>[];
	banner?: Record<string, unknown> | null;
}

export default async function contentRoutes(app: FastifyInstance) {
	const { store } = app.site;

	app.put<{ Body: ContentBody }>(
		'/api/content',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: "Replace a page's content (templates, and the banner when given)",
				description: 'banner absent keeps the current banner; null removes it.',
				tags: ['tenant'],
				security: tenantSecurity,
				body: {
					type: 'object',
					required: ['url', 'templates'],
					additionalProperties: false,
					properties: { url: pageUrlSchema, templates: templatesSchema, banner: bannerSchema },
				},
				response: {
					200: {
						type: 'object',
						required: ['message', 'page'],
						properties: { message: { type: 'string' }, page: pageSchema },
					},
					...errorResponses,
				},
			},
		},
		async (request) => {
			const { url, templates, banner } = request.body;
			const page = store.pages.updateContent(tenantOf(request).pk, url, templates, banner);
			if (!page) throw notFound(`Page "${url}" not found.`);
			return { message: 'Content updated successfully.', page };
		},
	);
}
