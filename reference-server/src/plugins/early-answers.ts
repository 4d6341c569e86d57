import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingMessage } from 'node:http';

/**
 * Bytes of a refused request's body read and discarded before its answer goes out; a longer rest is
 * cut off (answer sent, connection closed).
 */
const EARLY_ANSWER_DRAIN_BYTES = 64 * 1024 * 1024;

type Done = (error: Error | null, payload?: unknown) => void;

/**
 * An answer decided before the request body arrived (401 from the auth hook on an upload, a 404, a
 * 415, a 413 for a body over the limit) waits until the body has been read: Node 20's HTTP client,
 * once it has a whole response, stops listening for `drain`, so a client still streaming the body
 * into a kept-alive socket waits forever, and so does the next request queued for that socket.
 * Answering after the body keeps the connection usable and never closes a socket with unread data
 * (which clients see as a reset: EPIPE, "fetch failed", and a retry of a request that cannot succeed).
 */
export default fp(
	async function earlyAnswersPlugin(app: FastifyInstance) {
		app.addHook(
			'onSend',
			(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => {
				const raw = request.raw;
				if (raw.complete || raw.readableEnded || raw.destroyed || !hasBody(raw))
					return done(null, payload);
				drainBody(raw, EARLY_ANSWER_DRAIN_BYTES).then((ended) => {
					if (!ended) reply.header('connection', 'close');
					done(null, payload);
				}, done);
			},
		);
	},
	{ name: 'early-answers' },
);

function hasBody(raw: IncomingMessage): boolean {
	const length = raw.headers['content-length'];
	return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Reads and discards the rest of a request body still arriving. Resolves true once the body ended,
 * false when more than maxBytes came or the connection went first.
 */
function drainBody(raw: IncomingMessage, maxBytes: number): Promise<boolean> {
	return new Promise((resolve) => {
		let seen = 0;
		const finish = (ended: boolean) => {
			raw.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
			resolve(ended);
		};
		const onData = (chunk: Buffer) => {
			seen += chunk.length;
			if (seen > maxBytes) finish(false);
		};
		const onEnd = () => finish(true);
		const onGone = () => finish(raw.complete);
		raw.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
		raw.resume();
	});
}
