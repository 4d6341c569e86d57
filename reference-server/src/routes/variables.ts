import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ApiError, notFound } from '../errors/api-error';
import { tenantOf } from '../context';
import { tenantSecurity } from '../schemas/common';
import {
	deleteVariableBody,
	deleteVariableResponses,
	listVariablesResponses,
	putVariableBody,
	putVariableResponses,
} from '../schemas/variables';

/**
 * Variables exist only when the server runs with --enable-variables; otherwise every call is a 403
 * feature_disabled (after authentication: an unauthenticated caller learns nothing about the switch).
 */
const variableRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, config } = app.site;
	const requireVariablesEnabled = async () => {
		if (!config.enableVariables) {
			throw new ApiError(
				403,
				'feature_disabled',
				'Variables are not enabled on this server (start it with --enable-variables).',
			);
		}
	};
	// Both run before the body is parsed or validated, so a disabled feature is a 403 whatever the body.
	const common = { onRequest: [app.requireTenant, requireVariablesEnabled] };
	const docs = {
		tags: ['tenant'],
		security: tenantSecurity,
		'x-extension': true,
		'x-contract-decided': true,
	};

	app.get(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'List variables, sorted by key',
				response: listVariablesResponses,
			},
		},
		async (request) => ({ data: store.variables.list(tenantOf(request).pk) }),
	);

	app.put(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'Create or replace a variable',
				body: putVariableBody,
				response: putVariableResponses,
			},
		},
		async (request) => {
			const variable = store.variables.save(
				tenantOf(request).pk,
				request.body.key,
				request.body.value,
			);
			return { message: 'Variable saved.', variable };
		},
	);

	app.delete(
		'/api/variables',
		{
			...common,
			schema: {
				...docs,
				summary: 'Delete a variable',
				body: deleteVariableBody,
				response: deleteVariableResponses,
			},
		},
		async (request) => {
			if (!store.variables.remove(tenantOf(request).pk, request.body.key))
				throw notFound(`Variable "${request.body.key}" not found.`);
			return { message: 'Variable deleted.' };
		},
	);
};

export default variableRoutes;
