import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { addRouteHook, routeMethods } from '../lib/route-hooks';

const WRITING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
	interface FastifyRequest {
		/** The group commit this request's writes went into (db/group-commit.ts), if it writes. */
		commit: Promise<void> | null;
	}
}

type Done = (error: Error | null, payload?: unknown) => void;

/**
 * Answers go out only after what they report is committed. A writing request joins the group commit
 * of its event-loop turn before its handler runs; every answer (reads too, so that none shows data a
 * failed commit took back) waits for the open group. Register after the idempotency plugin, whose
 * onSend stores the answer in the same group, and before the faults plugin, whose dropped connections
 * must come after the commit (route hooks run in the order the plugins add them).
 */
export default fp(
	async function commitPlugin(app: FastifyInstance) {
		const { commits } = app.site.store;
		app.decorateRequest('commit', null);

		const join = (request: FastifyRequest, _reply: FastifyReply, done: Done) => {
			if (WRITING_METHODS.has(request.method)) request.commit = commits.join();
			done(null);
		};

		// Callback style: most answers have nothing to wait for, and this runs for every one of them.
		const waitForCommit = (
			request: FastifyRequest,
			_reply: FastifyReply,
			payload: unknown,
			done: Done,
		) => {
			const own = request.commit;
			// Once per request: the 500 sent for a failed commit passes through here again.
			request.commit = null;
			const open = commits.pending();
			if (!own && !open) return done(null, payload);
			Promise.all([own, open]).then(
				() => done(null, payload),
				(error: Error) => done(error),
			);
		};

		app.addHook('onRoute', (route) => {
			if (routeMethods(route).some((method) => WRITING_METHODS.has(method)))
				addRouteHook(route, 'preHandler', join);
			addRouteHook(route, 'onSend', waitForCommit);
		});
	},
	{ name: 'site-commit', dependencies: ['site-idempotency'] },
);
