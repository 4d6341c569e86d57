import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound, quotaExceeded, ApiError } from '../errors/api-error';
import { tenantOf } from '../context';
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
		'x-extension': true,
		'x-contract-decided': true,
	};

	app.get(
		'/api/variables',
		{
			...common,
			schema: {
				operationId: 'listVariables',
				...docs,
				summary: 'List variables, sorted by key',
				description:
					'All of them in one answer: a tenant holds at most --max-variables variables of --max-variables-kb KB together (PUT answers 413 quota_exceeded past either).',
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
				operationId: 'putVariables',
				...docs,
				summary: 'Create or replace a variable',
				body: putVariableBody,
				response: putVariableResponses,
			},
		},
		async (request) => {
			const { key, value } = request.body;
			const tenantPk = tenantOf(request).pk;
			// The list is answered whole (GET has no pages): bounding what a tenant keeps bounds that answer.
			const others = store.variables.usageExcept(tenantPk, key);
			const bytes = others.bytes + Buffer.byteLength(key) + Buffer.byteLength(value);
			if (others.count + 1 > config.maxVariables)
				throw quotaExceeded(
					`A tenant may have at most ${config.maxVariables} variables (server option --max-variables); delete one first.`,
				);
			if (bytes > config.maxVariablesKb * 1024)
				throw quotaExceeded(
					`A tenant's variables may take at most ${config.maxVariablesKb} KB together (server option --max-variables-kb); this value would take them to ${Math.ceil(bytes / 1024)} KB.`,
				);
			const variable = store.variables.save(tenantPk, key, value);
			return { message: 'Variable saved.', variable };
		},
	);

	app.delete(
		'/api/variables',
		{
			...common,
			schema: {
				operationId: 'deleteVariables',
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
