import type { FastifyInstance } from 'fastify';
import { HEAVY_BODY_BYTES, heavyWork } from '../plugins/heavy-work';
import { jsonFieldText } from '../plugins/json-body';
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
			// A large body's templates are serialised by the JSON worker, off the event loop (plugins/json-body.ts).
			config: { jsonTextFields: ['templates'] },
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
		async (request, reply) => {
			const { url, templates, banner } = request.body;
			const update = () => store.pages.updateContent(tenantOf(request).pk, url, jsonFieldText(request, 'templates', templates), banner);
			// Storing megabytes of templates is a long step: one at a time (plugins/heavy-work.ts).
			const large = Number(request.headers['content-length']) >= HEAVY_BODY_BYTES;
			const updated = large ? await heavyWork.run(update) : update();
			if (!updated) throw notFound(`Page "${url}" not found.`);
			// The templates go out as the JSON text just stored, not serialised a second time.
			const head = JSON.stringify({ message: 'Content updated successfully.', page: updated.page });
			const body = `${head.slice(0, -2)},"templates":${updated.templatesJson}}}`;
			return reply.type('application/json; charset=utf-8').send(body);
		},
	);
}
