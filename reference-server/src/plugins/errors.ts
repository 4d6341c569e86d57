import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
	ApiError,
	type FieldProblem,
	invalidJson,
	notFound,
	payloadTooLarge,
	unsupportedMediaType,
	validationFailed,
} from '../errors/api-error';
import { errorResponses } from '../schemas/common';

interface AjvError {
	keyword: string;
	instancePath: string;
	message?: string;
	params: Record<string, unknown>;
	propertyName?: string;
	/** The subschema whose keyword failed (ajv's `verbose` option, app.ts). */
	parentSchema?: Record<string, unknown>;
}

/** `/templates/0/x` with a missing `y` becomes `templates.0.x.y`; the request part names an empty path. */
function fieldOf(error: AjvError, context: string): string {
	const segments = error.instancePath
		.split('/')
		.slice(1)
		.map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
	if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
	else if (error.keyword === 'additionalProperties')
		segments.push(String(error.params.additionalProperty));
	else if (error.propertyName !== undefined) segments.push(error.propertyName);
	return segments.length > 0 ? segments.join('.') : context;
}

function problemOf(error: AjvError, context: string): string {
	switch (error.keyword) {
		case 'required':
			return 'is required';
		case 'additionalProperties':
			return 'is not an accepted field';
		case 'enum':
			return `must be one of: ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
		case 'type':
			if (error.instancePath === '' && context === 'body') return 'must be a JSON object';
			return `must be of type ${String(error.params.type).replace(/,/g, ' or ')}`;
		default:
			return error.message ?? 'is invalid';
	}
}

/**
 * A schema may say in words what its constraint means: `'x-problem': 'must be an http(s) URL'` next to
 * the constraint replaces ajv's wording (which would quote the regular expression). Not for a missing
 * or unknown field, whose subschema is the object's.
 */
function problemFromSchema(error: AjvError): string | undefined {
	if (error.keyword === 'required' || error.keyword === 'additionalProperties') return undefined;
	const problem = error.parentSchema?.['x-problem'];
	return typeof problem === 'string' ? problem : undefined;
}

/** Every bad field once (the first problem found for it), in the order ajv reported them. */
function problemsFromValidation(errors: AjvError[], context: string): FieldProblem[] {
	const byField = new Map<string, string>();
	for (const error of errors) {
		// propertyNames reports each failed sub-keyword (tagged with propertyName) and then a summary; the former say more.
		if (error.keyword === 'propertyNames') continue;
		const field = fieldOf(error, context);
		if (!byField.has(field))
			byField.set(field, problemFromSchema(error) ?? problemOf(error, context));
	}
	if (byField.size === 0 && errors.length > 0) byField.set(context, problemOf(errors[0], context));
	return [...byField].map(([field, problem]) => ({ field, problem }));
}

const STATUS_CODES: Record<number, string> = {
	400: 'validation_failed',
	401: 'unauthorized',
	403: 'forbidden',
	404: 'not_found',
	409: 'conflict',
	413: 'payload_too_large',
	415: 'unsupported_media_type',
	429: 'rate_limited',
};

/** Fastify's and @fastify/multipart's own errors, by code. */
const FRAMEWORK_ERRORS: Record<string, ApiError> = {
	FST_ERR_CTP_INVALID_JSON_BODY: invalidJson('The request body is not valid JSON.'),
	FST_ERR_CTP_EMPTY_JSON_BODY: invalidJson(
		'The request body is empty but its content type is application/json.',
	),
	FST_ERR_CTP_INVALID_CONTENT_LENGTH: invalidJson(
		'The request body does not match its Content-Length.',
	),
	FST_ERR_CTP_BODY_TOO_LARGE: payloadTooLarge(
		'The request body is larger than the configured limit.',
	),
	FST_REQ_FILE_TOO_LARGE: payloadTooLarge('The upload is larger than the configured limit.'),
	FST_PARTS_LIMIT: payloadTooLarge('The multipart body has too many parts.'),
	FST_FILES_LIMIT: payloadTooLarge('The multipart body has too many files.'),
	FST_FIELDS_LIMIT: payloadTooLarge('The multipart body has too many fields.'),
	FST_ERR_CTP_INVALID_MEDIA_TYPE: unsupportedMediaType(
		'The request content type is not supported by this endpoint.',
	),
	FST_INVALID_MULTIPART_CONTENT_TYPE: unsupportedMediaType(
		'This endpoint expects multipart/form-data.',
	),
	FST_PROTO_VIOLATION: new ApiError(
		400,
		'validation_failed',
		'A multipart field name is not allowed.',
	),
};

/**
 * The contract's error body `{error, message, details?}` (undefined details are left out); every
 * error answer goes out through here.
 */
export function sendError(reply: FastifyReply, { status, code, message, details }: ApiError) {
	return reply
		.code(status)
		.type('application/json; charset=utf-8')
		.send({ error: code, message, details });
}

function handleError(
	this: FastifyInstance,
	error: FastifyError | ApiError | Error,
	request: FastifyRequest,
	reply: FastifyReply,
) {
	// An over-limit body's 413, like every answer, waits for the rest of the body (early-answers.ts).
	const known = error instanceof ApiError ? error : FRAMEWORK_ERRORS[(error as FastifyError).code];
	if (known) return sendError(reply, known);

	const fastifyError = error as FastifyError;
	if (Array.isArray(fastifyError.validation)) {
		const errors = fastifyError.validation as unknown as AjvError[];
		const details = problemsFromValidation(errors, fastifyError.validationContext ?? 'body');
		return sendError(reply, validationFailed(details));
	}
	// A body that JSON.parse rejected in a custom parser, or any other framework 4xx: the input's fault.
	const status = fastifyError.statusCode;
	if (typeof status === 'number' && status >= 400 && status < 500) {
		return sendError(
			reply,
			new ApiError(status, STATUS_CODES[status] ?? 'bad_request', fastifyError.message),
		);
	}
	// Everything else is ours: log it whole, answer without internals.
	request.log.error({ err: error }, 'request failed');
	return sendError(
		reply,
		new ApiError(500, 'internal', 'An internal error occurred; please retry later.'),
	);
}

export default fp(
	async function errorsPlugin(app: FastifyInstance) {
		app.setErrorHandler(handleError);
		// Every route's path as a pattern, so that a known path asked with another method answers 405
		// with the methods it has (Allow), not 404. Registered before the routes (onRoute sees them).
		const routes: Array<{ method: string; path: RegExp }> = [];
		app.addHook('onRoute', (route) => {
			// Every answer map also has the error body, for the answers this handler sends (GET /health
			// takes no input and answers no error).
			if (route.schema?.response && route.url !== '/health')
				route.schema.response = { ...(route.schema.response as object), ...errorResponses };
			const path = new RegExp(
				`^${route.url
					.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
					.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+')}/?$`,
			);
			for (const method of [route.method].flat()) routes.push({ method, path });
		});
		app.setNotFoundHandler((request, reply) => {
			const path = request.url.split('?')[0];
			const allowed = [
				...new Set(routes.filter((route) => route.path.test(path)).map((r) => r.method)),
			];
			if (allowed.length > 0) {
				reply.header('allow', allowed.join(', '));
				const message = `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`;
				return sendError(reply, new ApiError(405, 'method_not_allowed', message));
			}
			return sendError(reply, notFound(`There is no route ${request.method} ${path}.`));
		});
	},
	{ name: 'site-errors' },
);
