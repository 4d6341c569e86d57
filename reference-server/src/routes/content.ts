import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors/api-error';
import { tenantOf } from '../context';
import { tenantSecurity } from '../schemas/common';
import { contentBody, contentResponses } from '../schemas/content';
import { pageUrlOrThrow } from '../lib/page-url';

const contentRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store } = app.site;

	app.put(
		'/api/content',
		{
			onRequest: app.requireTenant,
			schema: {
				summary: "Replace a page's content (templates, and the banner when given)",
				description: 'banner absent keeps the current banner; null removes it.',
				tags: ['tenant'],
				security: tenantSecurity,
				body: contentBody,
				response: contentResponses,
			},
		},
		async (request, reply) => {
			const { templates, banner } = request.body;
			const url = pageUrlOrThrow(request.body.url);
			const updated = store.pages.updateContent(
				tenantOf(request).pk,
				url,
				JSON.stringify(templates),
				banner,
			);
			if (!updated) throw notFound(`Page "${url}" not found.`);
			// The templates go out as the JSON text just stored, not serialised a second time.
			const head = JSON.stringify({ message: 'Content updated successfully.', page: updated.page });
			const body = `${head.slice(0, -2)},"templates":${updated.templatesJson}}}`;
			return reply.type('application/json; charset=utf-8').send(body);
		},
	);
};

export default contentRoutes;
