/**
 * A pass-through HTTP proxy in front of the reference server that can hold requests back, to make
 * concurrency and timeouts visible. Query parameters it understands (removed before forwarding):
 *
 * - `delay=<ms>`: hold every such request that long before forwarding it.
 * - `delayOnce=<key>:<ms>`: hold only the first request carrying this key that long.
 * - `failOnce=<key>:<status>[:<retryAfterSeconds>]`: answer the first request carrying this key
 *   with that status (and Retry-After) without forwarding it.
 * - `dropOnce=<key>[:<METHOD>]`: forward the first request carrying this key (of that method), let
 *   the server answer, then close the client's connection without passing the answer on (work
 *   committed, answer lost).
 * - `hide=<path>`: answer every request for exactly this path 404 (a service without that endpoint).
 *
 * The same directives may come as a path prefix `/_/<name>=<value>;<name>=<value>/` (so a credential's
 * base URL can carry them, e.g. `http://127.0.0.1:PORT/_/delayOnce=a:800`); the prefix is removed too.
 *
 * Every request is logged (method, path, Idempotency-Key, arrival and finish time).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'http';
import type { AddressInfo } from 'net';

export interface ProxiedRequest {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	idempotencyKey?: string;
	/** True when the proxy dropped the answer (dropOnce). */
	dropped?: boolean;
	arrivedAt: number;
	finishedAt?: number;
	status?: number;
}

export interface DelayProxy {
	url: string;
	log: ProxiedRequest[];
	close(): Promise<void>;
}

interface DelayProxyOptions {
	/**
	 * Called with each request and its body before it is forwarded (after any delay is decided): a
	 * test acts at that moment, e.g. edits a page between a node's read and its write.
	 */
	beforeForward?: (request: ProxiedRequest, body: Buffer) => Promise<void> | void;
}

export async function startDelayProxy(
	target: () => string,
	options: DelayProxyOptions = {},
): Promise<DelayProxy> {
	const log: ProxiedRequest[] = [];
	const seenOnce = new Set<string>();
	const sockets = new Set<import('net').Socket>();

	const server: Server = createServer((incoming, outgoing) => {
		const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
		const prefix = /^\/_\/([^/]*)(\/.*)?$/.exec(url.pathname);
		if (prefix) {
			for (const directive of decodeURIComponent(prefix[1]).split(';')) {
				const [name, ...value] = directive.split('=');
				if (name) url.searchParams.set(name, value.join('='));
			}
			url.pathname = prefix[2] ?? '/';
		}
		let delay = Number(url.searchParams.get('delay') ?? 0) || 0;
		const once = url.searchParams.get('delayOnce');
		if (once) {
			const [key, ms] = once.split(':');
			if (!seenOnce.has(key)) {
				seenOnce.add(key);
				delay = Number(ms) || 0;
			}
		}
		let failure: { status: number; retryAfter?: string } | undefined;
		const failOnce = url.searchParams.get('failOnce');
		if (failOnce) {
			const [key, status, retryAfter] = failOnce.split(':');
			if (!seenOnce.has(`fail:${key}`)) {
				seenOnce.add(`fail:${key}`);
				failure = { status: Number(status), retryAfter };
			}
		}
		const hidden = url.searchParams.get('hide');
		if (hidden && url.pathname === hidden) failure = { status: 404 };
		let drop = false;
		const dropOnce = url.searchParams.get('dropOnce');
		if (dropOnce) {
			const [key, method] = dropOnce.split(':');
			if (!seenOnce.has(`drop:${key}`) && (!method || method === incoming.method)) {
				seenOnce.add(`drop:${key}`);
				drop = true;
			}
		}
		url.searchParams.delete('delay');
		url.searchParams.delete('delayOnce');
		url.searchParams.delete('failOnce');
		url.searchParams.delete('dropOnce');
		url.searchParams.delete('hide');
		const path = `${url.pathname}${url.search}`;
		const entry: ProxiedRequest = {
			method: incoming.method ?? 'GET',
			path,
			headers: incoming.headers,
			idempotencyKey: incoming.headers['idempotency-key'] as string | undefined,
			arrivedAt: Date.now(),
		};
		log.push(entry);

		outgoing.on('error', () => {});
		if (failure) {
			entry.status = failure.status;
			entry.finishedAt = Date.now();
			outgoing.writeHead(failure.status, {
				'content-type': 'application/json',
				...(failure.retryAfter !== undefined ? { 'retry-after': failure.retryAfter } : {}),
			});
			outgoing.end(
				JSON.stringify({
					error: 'injected',
					message: `Injected ${failure.status} by the test proxy.`,
				}),
			);
			incoming.resume();
			return;
		}

		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		const forward = () => {
			setTimeout(() => {
				const upstream = httpRequest(
					`${target()}${path}`,
					{
						method: incoming.method,
						headers: { ...incoming.headers, host: new URL(target()).host },
					},
					(response) => {
						entry.status = response.statusCode;
						if (drop) {
							entry.dropped = true;
							response.resume();
							response.on('end', () => {
								entry.finishedAt = Date.now();
								incoming.socket.destroy();
							});
							return;
						}
						outgoing.writeHead(response.statusCode ?? 502, response.headers);
						response.pipe(outgoing);
						response.on('end', () => (entry.finishedAt = Date.now()));
					},
				);
				upstream.on('error', () => {
					if (!outgoing.headersSent) outgoing.writeHead(502);
					outgoing.end();
				});
				upstream.end(Buffer.concat(chunks));
			}, delay);
		};
		incoming.on('end', () => {
			void Promise.resolve(options.beforeForward?.(entry, Buffer.concat(chunks))).then(forward);
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		log,
		async close() {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
