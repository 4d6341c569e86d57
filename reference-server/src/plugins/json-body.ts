import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from './errors';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Storing a body serialises it
 * recursively: past ~4,500 levels that overflowed the stack (a 500); no real content nests near this.
 */
export const MAX_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * Whether the JSON text nests deeper than maxDepth, counted over its bytes without parsing (strings
 * skipped; in UTF-8 no byte of a multi-byte character is an ASCII bracket or quote).
 */
export function nestsDeeperThan(bytes: Buffer, maxDepth: number): boolean {
	let depth = 0;
	let inString = false;
	for (let i = 0; i < bytes.length; i += 1) {
		const byte = bytes[i];
		if (inString) {
			if (byte === BACKSLASH) i += 1;
			else if (byte === QUOTE) inString = false;
		} else if (byte === QUOTE) inString = true;
		else if (OPENERS.has(byte)) {
			depth += 1;
			if (depth > maxDepth) return true;
		} else if (CLOSERS.has(byte)) depth -= 1;
	}
	return false;
}

/**
 * JSON bodies, checked before they are parsed: valid UTF-8 (a bad byte would silently become U+FFFD
 * in stored text) and nested at most MAX_JSON_DEPTH levels; then Fastify's own parser (which refuses
 * `__proto__` keys).
 */
export default fp(
	async function jsonBodyPlugin(app: FastifyInstance) {
		const parseJson = app.getDefaultJsonParser('error', 'ignore');
		const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
		app.removeContentTypeParser('application/json');
		app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
			let text: string;
			try {
				text = utf8.decode(body);
			} catch {
				return done(new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8.'), undefined);
			}
			if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
				return done(new ApiError(400, 'invalid_json', `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
			}
			parseJson(request, text, done);
		});
	},
	{ name: 'site-json-body', dependencies: ['site-errors'] },
);
