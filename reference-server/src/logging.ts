import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import type { ServerConfig } from './types';

/**
 * The server's logging, given to Fastify when the instance is made (a logger cannot be set up by a
 * plugin afterwards): the level, the headers that never reach a log line, and what a request logs.
 */
export function loggerOptions(config: ServerConfig): FastifyServerOptions['logger'] {
	if (config.logger === false) return false;
	return {
		level: config.logger === true ? 'info' : config.logger,
		// The default serializers log no headers and no bodies, but plugins may log request headers at
		// debug/trace level (@fastify/multipart logs its busboy options, headers included).
		redact: {
			paths: ['.authorization', '.cookie', '["idempotency-key"]'].flatMap((header) => [
				`headers${header}`,
				`*.headers${header}`,
				`*.*.headers${header}`,
			]),
			censor: '[redacted]',
		},
		serializers: { req: serializeRequest },
		...(config.logStream ? { stream: config.logStream } : {}),
	};
}

/**
 * A request as logged: method, path, the names (not the values) of its query parameters, host and
 * peer. Query values are left out because a client may put a token there by mistake.
 */
function serializeRequest(request: FastifyRequest) {
	const [pathPart, queryPart] = request.url.split('?', 2);
	const names = queryPart === undefined ? [] : [...new URLSearchParams(queryPart).keys()];
	return {
		method: request.method,
		url:
			names.length > 0
				? `${pathPart}?${names.map((name) => `${encodeURIComponent(name)}=…`).join('&')}`
				: pathPart,
		host: request.host ?? request.hostname,
		remoteAddress: request.ip,
		remotePort: request.socket?.remotePort,
	};
}
