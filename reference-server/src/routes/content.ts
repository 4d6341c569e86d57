import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HEAVY_BODY_BYTES, heavyWork } from '../lib/heavy-work';
import { ApiError, notFound } from '../errors/api-error';
import { jsonFieldText } from '../plugins/json-body';
import { tenantOf } from '../context';
import { tenantSecurity } from '../schemas/common';
import { contentBody, contentResponses } from '../schemas/content';
import { pageUrlOrThrow } from '../lib/page-url';

/** 412: the page is no longer at the version the caller read; details say which it is at now. */
function pageChanged(url: string, expected: string, current: string): ApiError {
	return new ApiError(
		412,
		'precondition_failed',
		`Page "${url}" changed since ${expected} (now updated_at ${current}); nothing was written.`,
		{ updated_at: current },
	);
}

const contentRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store } = app.site;

	app.put(
		'/api/content',
		{
			onRequest: app.requireTenant,
			// A large body's templates are serialised by the JSON worker, off the event loop (plugins/json-body.ts).
			config: { jsonTextFields: ['templates'] },
			schema: {
				summary: "Replace a page's content (templates, and the banner when given)",
				description:
					'banner absent keeps the current banner; null removes it. Extension: if_updated_at makes the update conditional on the page being unchanged (412 precondition_failed otherwise, nothing written).',
				tags: ['tenant'],
				security: tenantSecurity,
				body: contentBody,
				response: contentResponses,
			},
		},
		async (request, reply) => {
			const { templates, banner, if_updated_at: ifUpdatedAt } = request.body;
			const url = pageUrlOrThrow(request.body.url);
			const update = () =>
				store.pages.updateContent(
					tenantOf(request).pk,
					url,
					jsonFieldText(request, 'templates', templates),
					banner,
					ifUpdatedAt,
				);
			// Storing megabytes of templates is a long step: one at a time (lib/heavy-work.ts).
			const large = Number(request.headers['content-length']) >= HEAVY_BODY_BYTES;
			const updated = large ? await heavyWork.run(update) : update();
			if (!updated) throw notFound(`Page "${url}" not found.`);
			if (updated.stale) throw pageChanged(url, ifUpdatedAt as string, updated.stale.updated_at);
			// The templates go out as the JSON text just stored, not serialised a second time.
			const head = JSON.stringify({ message: 'Content updated successfully.', page: updated.page });
			const body = `${head.slice(0, -2)},"templates":${updated.templatesJson}}}`;
			return reply.type('application/json; charset=utf-8').send(body);
		},
	);
};

export default contentRoutes;
