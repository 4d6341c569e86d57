import { errorCodes, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { isUtf8 } from 'node:buffer';
import { parse as secureJsonParse } from 'secure-json-parse';
import { invalidJson } from '../errors/api-error';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';

/** As Fastify's `getDefaultJsonParser('error', 'ignore')`: `__proto__` refused, `constructor` kept. */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'ignore' } as const;

/** Parses the body, or gives the error to answer with. */
function parseJson(body: Buffer): { error: Error } | { value: unknown } {
	if (!isUtf8(body)) return { error: invalidJson('The request body is not valid UTF-8.') };
	if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
		const message = `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`;
		return { error: invalidJson(message) };
	}
	if (body.length === 0) return { error: new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY() };
	try {
		return { value: secureJsonParse(body.toString('utf8'), undefined, PARSE_OPTIONS) };
	} catch (error) {
		// Valid JSON with a `__proto__` key is refused saying why (it is not "not valid JSON").
		if (/forbidden prototype property/i.test(String((error as Error)?.message ?? '')))
			return {
				error: invalidJson(
					'The request body has a "__proto__" key, which is not accepted (it could change the objects it is merged into).',
				),
			};
		return { error: new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY() };
	}
}

/**
 * JSON bodies, checked before they are parsed: valid UTF-8 (a bad byte would silently become U+FFFD
 * in stored text) and nested at most MAX_JSON_DEPTH levels; then Fastify's own parser with its
 * options (which refuses `__proto__` keys).
 */
export default fp(
	async function jsonBodyPlugin(app: FastifyInstance) {
		app.removeContentTypeParser('application/json');
		app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
			const parsed = parseJson(body as Buffer);
			if ('error' in parsed) done(parsed.error, undefined);
			else done(null, parsed.value);
		});
	},
	{ name: 'site-json-body', dependencies: ['site-errors'] },
);
