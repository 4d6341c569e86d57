import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isUtf8 } from 'node:buffer';
import { availableParallelism } from 'node:os';
import { ApiError } from '../errors/api-error';
import { JsonWorkerPool } from '../json-workers/pool';
import { parse as secureJsonParse } from 'secure-json-parse';
import type { JsonOutcome, JsonRefusal } from '../json-workers/protocol';
import { isForbiddenKey } from '../json-workers/protocol';

/** As Fastify's `getDefaultJsonParser('error', 'ignore')`: `__proto__` refused, `constructor` kept. */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'ignore' } as const;
import { HEAVY_BODY_BYTES } from '../lib/heavy-work';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';

export { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';

declare module 'fastify' {
	interface FastifyRequest {
		/** Set for a large JSON body parsed by a JSON worker: what the worker computed besides the body. */
		offThreadJson: { hash: string; texts: Record<string, string> } | null;
	}
	interface FastifyContextConfig {
		/**
		 * Top-level body fields (arrays of objects) the route stores as JSON text. For a large body the
		 * JSON worker serialises them and leaves an empty array in the body; the route takes the text
		 * from `request.offThreadJson.texts` (jsonFieldText).
		 */
		jsonTextFields?: string[];
	}
}

/** The JSON text of a body field: serialised by the JSON worker for a large body, here otherwise. */
export function jsonFieldText(request: FastifyRequest, field: string, value: unknown): string {
	return request.offThreadJson?.texts[field] ?? JSON.stringify(value);
}

/**
 * Threads for large bodies: one, or two where the machine has cores to spare; the event loop keeps
 * a core for itself.
 */
const JSON_WORKERS = Math.max(1, Math.min(2, availableParallelism() - 1));

function refusal(reason: JsonRefusal): Error {
	if (reason === 'utf8')
		return new ApiError(400, 'invalid_json', 'The request body is not valid UTF-8.');
	if (reason === 'depth')
		return new ApiError(
			400,
			'invalid_json',
			`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`,
		);
	if (reason === 'proto') return forbiddenKey();
	// What Fastify's own parser gives for bad JSON.
	return new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
}

/** Valid JSON with a `__proto__` key: refused, saying why (it is not "not valid JSON"). */
function forbiddenKey(): Error {
	return new ApiError(
		400,
		'invalid_json',
		'The request body has a "__proto__" key, which is not accepted (it could change the objects it is merged into).',
	);
}

/**
 * JSON bodies, checked before they are parsed: valid UTF-8 (a bad byte would silently become U+FFFD
 * in stored text) and nested at most MAX_JSON_DEPTH levels; then Fastify's own parser (which refuses
 * `__proto__` keys). A large body (HEAVY_BODY_BYTES and more) goes through all of that in a worker
 * thread (json-workers/), so other requests are answered meanwhile.
 */
export default fp(
	async function jsonBodyPlugin(app: FastifyInstance) {
		const workers = new JsonWorkerPool(JSON_WORKERS);
		app.addHook('onClose', () => workers.close());
		app.decorateRequest('offThreadJson', null);
		app.removeContentTypeParser('application/json');
		app.addContentTypeParser(
			'application/json',
			{ parseAs: 'buffer' },
			(request: FastifyRequest, body: Buffer, done) => {
				if (body.length < HEAVY_BODY_BYTES) {
					if (!isUtf8(body)) return done(refusal('utf8'), undefined);
					if (nestsDeeperThan(body, MAX_JSON_DEPTH)) return done(refusal('depth'), undefined);
					if (body.length === 0)
						return done(new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), undefined);
					// Fastify's own parser with its options, but saying why a `__proto__` key is refused.
					try {
						return done(null, secureJsonParse(body.toString('utf8'), undefined, PARSE_OPTIONS));
					} catch (error) {
						return done(
							isForbiddenKey(error)
								? forbiddenKey()
								: new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(),
							undefined,
						);
					}
				}
				const textFields = request.routeOptions.config.jsonTextFields ?? [];
				workers.run({ bytes: body, method: request.method, url: request.url, textFields }).then(
					(outcome: JsonOutcome) => {
						if (outcome.refused) return done(refusal(outcome.refused), undefined);
						request.offThreadJson = { hash: outcome.hash, texts: outcome.texts };
						done(null, outcome.body);
					},
					(error: Error) => done(error, undefined),
				);
			},
		);
	},
	{ name: 'site-json-body', dependencies: ['site-errors'] },
);
