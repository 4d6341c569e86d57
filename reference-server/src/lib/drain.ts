import type { IncomingMessage } from 'node:http';

/**
 * Reads and discards the rest of a request body, so an answer sent before the body was read does
 * not reach a client still sending it as a reset. Resolves true once the body ended, false when more
 * than maxBytes came or the connection went first.
 */
export function drainBody(raw: IncomingMessage, maxBytes: number): Promise<boolean> {
	if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve(raw.complete);
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
