import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound, ApiError } from '../errors/api-error';
import { tenantOf } from '../context';
import { contentBody, contentResponses } from '../schemas/pages';
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
};

export default contentRoutes;
