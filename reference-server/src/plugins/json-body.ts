import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isUtf8 } from 'node:buffer';
import { ApiError } from '../errors/api-error';
import { HEAVY_BODY_BYTES, heavyWork } from './heavy-work';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Storing a body serialises it
 * recursively: past ~4,500 levels that overflowed the stack (a 500); no real content nests near this.
 */
export const MAX_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

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
		else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
			depth += 1;
			if (depth > maxDepth) return true;
		} else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth -= 1;
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
		app.removeContentTypeParser('application/json');
		app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done) => {
			const check = () => {
				if (!isUtf8(body)) throw new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8.');
				if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
					throw new ApiError(400, 'invalid_json', `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`);
				}
				return body.toString('utf8');
			};
			if (body.length < HEAVY_BODY_BYTES) {
				let text: string;
				try {
					text = check();
				} catch (error) {
					return done(error as Error, undefined);
				}
				return parseJson(request, text, done);
			}
			// A large body: the check and the parse each in a turn of their own, one body at a time.
			heavyWork
				.run(check)
				.then((text) => heavyWork.run(() => parseJson(request, text, done)))
				.catch((error: Error) => done(error, undefined));
		});
	},
	{ name: 'site-json-body', dependencies: ['site-errors'] },
);
