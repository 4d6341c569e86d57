import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const WRITING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

declare module 'fastify' {
	interface FastifyRequest {
		/** The group commit this request's writes went into (db/group-commit.ts), if it writes. */
		commit: Promise<void> | null;
	}
}

/**
 * Answers go out only after what they report is committed. A writing request joins the group commit
 * of its event-loop turn before its handler runs; every answer (reads too, so that none shows data a
 * failed commit took back) waits for the open group. Register after the idempotency plugin, whose
 * onSend stores the answer in the same group, and before the faults plugin, whose dropped connections
 * must come after the commit.
 */
export default fp(
	async function commitPlugin(app: FastifyInstance) {
		const { commits } = app.site.store;
		app.decorateRequest('commit', null);

		app.addHook('preHandler', async (request: FastifyRequest) => {
			if (WRITING_METHODS.has(request.method)) request.commit = commits.join();
		});

		app.addHook('onSend', async (request: FastifyRequest, _reply, payload: unknown) => {
			const own = request.commit;
			// Once per request: the 500 sent for a failed commit passes through here again.
			request.commit = null;
			if (own) await own;
			const open = commits.pending();
			if (open) await open;
			return payload;
		});
	},
	{ name: 'site-commit', dependencies: ['site-idempotency'] },
);
