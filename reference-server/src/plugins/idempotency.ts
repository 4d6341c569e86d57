import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors/api-error';
import type { InFlightReservation } from '../db/idempotency';
import { requestHash, stableJson } from '../lib/request-hash';
import { addRouteHook } from '../lib/route-hooks';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
const MUTATING_METHODS = new Set(['POST', 'PUT', 'DELETE']);

interface Reservation {
	held: InFlightReservation;
	settled: boolean;
}

declare module 'fastify' {
	interface FastifyRequest {
		idempotency: Reservation | null;
	}
}

/**
 * What makes two requests "the same". A multipart body is streamed by its handler and not available
 * here, so for uploads only the declared length is compared (documented limitation).
 */
function hashOf(request: FastifyRequest): string {
	const body = request.isMultipart()
		? `multipart:${request.headers['content-length'] ?? ''}`
		: stableJson(request.body);
	return requestHash(request.method, request.url, body);
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

		// preValidation: after auth (the scope is the caller) and body parsing (the hash), before the handler.
		const reserve = async (request: FastifyRequest, reply: FastifyReply) => {
			if (!request.caller || !MUTATING_METHODS.has(request.method)) return;
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
			const result = repository.reserve(scope, key, hash, STALE_IN_FLIGHT_MS);
			if (result.kind === 'reserved') {
				request.idempotency = { held: result.reservation, settled: false };
				return;
			}
			const heldFor = result.kind === 'in_flight' ? result.requestHash : result.record.request_hash;
			if (heldFor !== hash) {
				throw new ApiError(
					422,
					'idempotency_key_reused',
					'This Idempotency-Key was already used for a different request.',
				);
			}
			if (result.kind === 'in_flight') {
				throw new ApiError(
					409,
					'conflict',
					'A request with this Idempotency-Key is still in progress; retry later.',
				);
			}
			const record = result.record;
			if (record.body === null) {
				throw new ApiError(
					409,
					'replay_not_available',
					`The request with this Idempotency-Key was done (HTTP ${record.status}), but its answer was larger than ${STORED_ANSWER_CAP / 1024} KB and was not kept; read the resource to see its state.`,
				);
			}
			return reply
				.code(record.status ?? 200)
				.header('content-type', record.content_type ?? 'application/json; charset=utf-8')
				.header('idempotent-replayed', 'true')
				.send(record.body ?? '');
		};

		const store = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
			const reservation = request.idempotency;
			if (!reservation || reservation.settled) return payload;
			reservation.settled = true;
			if (reply.statusCode < 500 && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
				const contentType = reply.getHeader('content-type');
				const text = payload.toString();
				// Over the cap: the status only (body null), so a repeat learns the request was done.
				const body = Buffer.byteLength(text) > STORED_ANSWER_CAP ? null : text;
				repository.complete(
					reservation.held,
					reply.statusCode,
					contentType === undefined ? null : String(contentType),
					body,
				);
			} else {
				repository.release(reservation.held);
			}
			return payload;
		};

		// A request that ended without onSend (connection lost mid-way) must not hold its key.
		const releaseUnsettled = async (request: FastifyRequest) => {
			const reservation = request.idempotency;
			if (reservation && !reservation.settled) {
				reservation.settled = true;
				repository.release(reservation.held);
			}
		};

		// Only the routes that take the header carry these hooks (lib/route-hooks.ts).
		app.addHook('onRoute', (route) => {
			if (!takesIdempotencyKey(route, app.site.config.extensions)) return;
			addRouteHook(route, 'preValidation', reserve);
			addRouteHook(route, 'onSend', store);
			addRouteHook(route, 'onResponse', releaseUnsettled);
		});

		// Expired records go lazily: at start-up (see db/index.ts) and hourly.
		const purgeTimer = setInterval(() => repository.purgeExpired(), 60 * 60 * 1000);
		purgeTimer.unref();
		app.addHook('onClose', async () => clearInterval(purgeTimer));
	},
	{ name: 'site-idempotency', dependencies: ['site-errors'] },
);
