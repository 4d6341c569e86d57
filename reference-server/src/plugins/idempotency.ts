import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { conflict, ApiError } from '../errors/api-error';
import type { StoredAnswer } from '../db/idempotency';
import { addRouteHook } from '../lib/route-hooks';

const IDEMPOTENCY_HEADER = 'idempotency-key';
const MUTATING_METHODS = new Set(['POST', 'PUT', 'DELETE']);

/** A request holding its key while it runs. */
interface Reservation {
	scope: string;
	key: string;
	hash: string;
	/** Date.now() when taken; the stored answer expires its time to live after this. */
	takenAt: number;
	settled: boolean;
}

declare module 'fastify' {
	interface FastifyRequest {
		idempotency: Reservation | null;
	}
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` count as the same request. */
function stableJson(value: unknown): string {
	if (value === undefined) return '';
	if (value === null || typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	const entries = Object.keys(value as object)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
	return `{${entries.join(',')}}`;
}

/**
 * What makes two requests "the same": method, URL and the body's stable JSON. A multipart body is
 * streamed by its handler and not available here, so for uploads only the declared length is
 * compared (documented limitation).
 */
function hashOf(request: FastifyRequest): string {
	const body = request.isMultipart()
		? `multipart:${request.headers['content-length'] ?? ''}`
		: stableJson(request.body);
	return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

/**
 * Whether a route takes the header: POST, PUT and DELETE under /api/, unless its config says
 * `idempotency: false`; none with --no-extensions, where the header is ignored as the described
 * service would. The OpenAPI document declares the header on the same routes.
 */
export function takesIdempotencyKey(
	route: Pick<RouteOptions, 'url' | 'method' | 'config'>,
	extensions: boolean,
): boolean {
	return (
		extensions &&
		route.url.startsWith('/api/') &&
		route.config?.idempotency !== false &&
		[route.method].flat().some((method) => MUTATING_METHODS.has(method))
	);
}

/** A reservation older than this belongs to a request that died without an answer; it may be taken over. */
const STALE_IN_FLIGHT_MS = 60_000;

/**
 * Bytes of an answer kept for replay. A larger answer is recorded by its status only: a repeat gets
 * 409 replay_not_available (the request was done; read the resource). Answers of mutating calls are
 * small except a page with large templates (replayed up to the cap); without a cap a key could pin
 * megabytes for 24 hours.
 */
export const STORED_ANSWER_CAP = 1024 * 1024;

/**
 * The `Idempotency-Key` extension: the first final answer (2xx or 4xx) to a POST, PUT or DELETE under
 * /api is stored for 24 hours per caller and replayed for a repeat; the key with a different request is
 * a 422. 5xx answers are not stored, so a retry does the work again. Read-only POSTs store nothing, and
 * an answer over STORED_ANSWER_CAP is kept as its status only.
 */
export default fp(
	async function idempotencyPlugin(app: FastifyInstance) {
		const repository = app.site.store.idempotency;
		app.decorateRequest('idempotency', null);

		/** Keys of requests still running, by scope and key. */
		const running = new Map<string, Reservation>();
		const idOf = (r: { scope: string; key: string }) => `${r.scope}\n${r.key}`;

		// preValidation: after auth (the scope is the caller) and body parsing (the hash), before the handler.
		const reserve = async (request: FastifyRequest, reply: FastifyReply) => {
			if (!request.caller) return;
			const key = request.headers[IDEMPOTENCY_HEADER];
			if (key === undefined) return;
			if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
				throw new ApiError(
					400,
					'validation_failed',
					'The Idempotency-Key header must be 1 to 255 characters.',
					[{ field: 'Idempotency-Key', problem: 'must be 1 to 255 characters' }],
				);
			}
			const scope = request.caller.kind === 'admin' ? 'admin' : `tenant:${request.caller.pk}`;
			const hash = hashOf(request);
			const now = Date.now();
			// A reservation gone stale belongs to a request that died unanswered: it is taken over.
			const held = running.get(idOf({ scope, key }));
			const inFlight = held !== undefined && now - held.takenAt < STALE_IN_FLIGHT_MS;
			const stored = inFlight ? undefined : repository.find(scope, key);
			if (!inFlight && !stored) {
				request.idempotency = { scope, key, hash, takenAt: now, settled: false };
				running.set(idOf({ scope, key }), request.idempotency);
				return;
			}
			if ((stored?.request_hash ?? held?.hash) !== hash) {
				throw new ApiError(
					422,
					'idempotency_key_reused',
					'This Idempotency-Key was already used for a different request.',
				);
			}
			if (!stored) {
				throw conflict('A request with this Idempotency-Key is still in progress; retry later.');
			}
			if (stored.body === null) {
				throw new ApiError(
					409,
					'replay_not_available',
					`The request with this Idempotency-Key was done (HTTP ${stored.status}), but its answer was larger than ${STORED_ANSWER_CAP / 1024} KB and was not kept; read the resource to see its state.`,
				);
			}
			return reply
				.code(stored.status)
				.header('content-type', stored.content_type ?? 'application/json; charset=utf-8')
				.header('idempotent-replayed', 'true')
				.send(stored.body);
		};

		/**
		 * Frees the key, storing the final answer if there is one. A reservation taken over meanwhile
		 * (stale) stores nothing: the newer request answers for the key.
		 */
		const settle = (reservation: Reservation, answer?: Omit<StoredAnswer, 'request_hash'>) => {
			reservation.settled = true;
			if (running.get(idOf(reservation)) !== reservation) return;
			running.delete(idOf(reservation));
			if (answer) {
				const stored = { ...answer, request_hash: reservation.hash };
				repository.save(reservation.scope, reservation.key, stored, reservation.takenAt);
			}
		};

		const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
			const reservation = request.idempotency;
			if (!reservation || reservation.settled) return payload;
			// 5xx answers are not stored (a retry does the work again), nor a streamed one.
			if (reply.statusCode >= 500 || !(typeof payload === 'string' || Buffer.isBuffer(payload))) {
				settle(reservation);
				return payload;
			}
			const text = payload.toString();
			const contentType = reply.getHeader('content-type');
			settle(reservation, {
				status: reply.statusCode,
				content_type: contentType === undefined ? null : String(contentType),
				// Over the cap: the status only, so a repeat learns the request was done.
				body: Buffer.byteLength(text) > STORED_ANSWER_CAP ? null : text,
			});
			return payload;
		};

		// A request that ended without onSend (connection lost mid-way) must not hold its key.
		const releaseUnsettled = async (request: FastifyRequest) => {
			if (request.idempotency && !request.idempotency.settled) settle(request.idempotency);
		};

		// Only the routes that take the header carry these hooks (lib/route-hooks.ts).
		app.addHook('onRoute', (route) => {
			if (!takesIdempotencyKey(route, app.site.config.extensions)) return;
			addRouteHook(route, 'preValidation', reserve);
			addRouteHook(route, 'onSend', store);
			addRouteHook(route, 'onResponse', releaseUnsettled);
		});

		// Expired records go lazily: at start-up (db/index.ts) and hourly.
		const purgeTimer = setInterval(() => repository.purgeExpired(), 60 * 60 * 1000);
		purgeTimer.unref();
		app.addHook('onClose', async () => clearInterval(purgeTimer));
	},
	{ name: 'site-idempotency', dependencies: ['site-errors'] },
);
