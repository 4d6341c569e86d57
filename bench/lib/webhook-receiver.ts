/**
 * A local webhook receiver for the contact-form rows: records when each submission arrives (by the
 * `seq` field the bench puts in it), on this process's performance.now() clock, and answers 200 at once.
 */
import { once } from 'events';
import { createServer } from 'http';
import type { AddressInfo } from 'net';

export interface WebhookReceiver {
	url: string;
	/** seq -> performance.now() at the end of its first delivery. */
	receivedAt: Map<number, number>;
	duplicates(): number;
	/** Resolves once `count` different submissions have arrived. */
	waitFor(count: number, timeoutMs: number): Promise<void>;
	close(): void;
}

export async function startReceiver(): Promise<WebhookReceiver> {
	const receivedAt = new Map<number, number>();
	let duplicates = 0;
	const waiters: Array<{ count: number; resolve: () => void }> = [];

	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const now = performance.now();
			const seq = Number(
				(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { fields: { seq: number } }).fields
					.seq,
			);
			if (receivedAt.has(seq)) duplicates++;
			else receivedAt.set(seq, now);
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			for (let i = 0; i < waiters.length; i++) {
				if (receivedAt.size >= waiters[i].count) waiters.splice(i--, 1)[0].resolve();
			}
		});
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');

	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
		receivedAt,
		duplicates: () => duplicates,
		waitFor(count, timeoutMs) {
			if (receivedAt.size >= count) return Promise.resolve();
			return new Promise<void>((resolve, reject) => {
				const timer = setTimeout(
					() =>
						reject(
							new Error(
								`webhook receiver: ${receivedAt.size} of ${count} delivered within ${timeoutMs} ms`,
							),
						),
					timeoutMs,
				);
				waiters.push({
					count,
					resolve: () => {
						clearTimeout(timer);
						resolve();
					},
				});
			});
		},
		close() {
			server.closeAllConnections();
			server.close();
		},
	};
}
