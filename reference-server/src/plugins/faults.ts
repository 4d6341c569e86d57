import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors/api-error';
import { addRouteHook } from '../lib/route-hooks';
import { sendError } from './errors';

declare module 'fastify' {
	interface FastifyRequest {
		/** Chosen at arrival: do the work, commit, then drop the connection unanswered. */
		dropConnection: boolean;
	}
}

/** Faults apply to the API only: health, the OpenAPI document, public forms and asset downloads stay reliable. */
function isApiRequest(request: FastifyRequest): boolean {
	return /^\/api(?:[/?]|$)/.test(request.url);
}

/**
 * Fault injection for reliability tests (--fault-rate, --fault-drop-rate). Register after the
 * idempotency plugin: onSend hooks run in registration order, and a dropped request must have stored
 * its idempotency record first, as a real "committed but the answer was lost" failure would.
 */
export default fp(
	async function faultsPlugin(app: FastifyInstance) {
		const { faultRate, faultDropRate } = app.site.config;
		app.decorateRequest('dropConnection', false);
		if (faultRate <= 0 && faultDropRate <= 0) return;

		app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
			if (!isApiRequest(request)) return;
			if (faultRate > 0 && Math.random() < faultRate) {
				const message = 'The service is temporarily unavailable (injected fault); retry.';
				return sendError(
					reply.header('retry-after', '0'),
					new ApiError(503, 'unavailable', message),
				);
			}
			if (faultDropRate > 0 && Math.random() < faultDropRate) request.dropConnection = true;
		});

		const dropIfChosen = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
			if (request.dropConnection) {
				request.log.info('injected fault: dropping the connection after the work was committed');
				reply.raw.socket?.destroy();
			}
			return payload;
		};
		// A route hook, added after those of the idempotency plugin (lib/route-hooks.ts).
		app.addHook('onRoute', (route) => addRouteHook(route, 'onSend', dropIfChosen));
	},
	{ name: 'site-faults', dependencies: ['site-idempotency'] },
);
