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
 * - `gather=<key>:<n>`: hold each such request until n requests of this key are held at once, then
 *   let them all go on (each after its `delay`). A test of how many requests a node keeps in flight
 *   then sees them together however slowly the machine sends them. Those held when no request of the
 *   key has arrived for GATHER_QUIET_MS go on anyway (a run's last few, or a window smaller than n).
 * - `hold=<key>`: hold each such request until the test calls `release(key)`.
 * - `holdAfter=<key>:<n>`: let the first n requests of this key go on, and hold the later ones as
 *   `hold=<key>` does.
 *
 * The same directives may come as a path prefix `/_/<name>=<value>;<name>=<value>/` (so a credential's
 * base URL can carry them, e.g. `http://127.0.0.1:PORT/_/delayOnce=a:800`); the prefix is removed too.
 *
 * Every request is logged (method, path, Idempotency-Key, arrival and finish time).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'http';
import { EventEmitter } from 'events';
import type { AddressInfo } from 'net';

/** How long a gathering waits for one more request before letting those it holds go on. */
export const GATHER_QUIET_MS = 1000;

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
	/** Lets every request held with `hold=<key>` go on, and those that come later. */
	release(key: string): void;
	/**
	 * Resolves once `done(log)` holds, checked at every arrival and answer; rejects after `timeoutMs`
	 * (a deadline far above the expected time: the wait ends on the event).
	 */
	until(done: (log: ProxiedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
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
	const changes = new EventEmitter().setMaxListeners(0);
	const finished = (entry: ProxiedRequest) => {
		entry.finishedAt = Date.now();
		changes.emit('change');
	};
	const gatherings = new Map<string, { held: Array<() => void>; quiet?: NodeJS.Timeout }>();
	const gather = (key: string, size: number) =>
		new Promise<void>((resolve) => {
			const gathering = gatherings.get(key) ?? { held: [] };
			gatherings.set(key, gathering);
			gathering.held.push(resolve);
			clearTimeout(gathering.quiet);
			const letGo = () => {
				clearTimeout(gathering.quiet);
				for (const go of gathering.held.splice(0)) go();
			};
			if (gathering.held.length >= size) letGo();
			else gathering.quiet = setTimeout(letGo, GATHER_QUIET_MS);
		});
	const arrivals = new Map<string, number>();
	const holds = new Map<string, { released: boolean; held: Array<() => void> }>();
	const holdOf = (key: string) => {
		const hold = holds.get(key) ?? { released: false, held: [] };
		holds.set(key, hold);
		return hold;
	};
	const hold = (key: string) =>
		new Promise<void>((resolve) => {
			const entry = holdOf(key);
			if (entry.released) resolve();
			else entry.held.push(resolve);
		});

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
		const gates: Array<Promise<void>> = [];
		const gathered = url.searchParams.get('gather');
		if (gathered) {
			const [key, size] = gathered.split(':');
			gates.push(gather(key, Number(size)));
		}
		const held = url.searchParams.get('hold');
		if (held) gates.push(hold(held));
		const heldAfter = url.searchParams.get('holdAfter');
		if (heldAfter) {
			const [key, free] = heldAfter.split(':');
			const seen = (arrivals.get(key) ?? 0) + 1;
			arrivals.set(key, seen);
			if (seen > Number(free)) gates.push(hold(key));
		}
		for (const name of [
			'delay',
			'delayOnce',
			'failOnce',
			'dropOnce',
			'hide',
			'gather',
			'hold',
			'holdAfter',
		])
			url.searchParams.delete(name);
		const path = `${url.pathname}${url.search}`;
		const entry: ProxiedRequest = {
			method: incoming.method ?? 'GET',
			path,
			headers: incoming.headers,
			idempotencyKey: incoming.headers['idempotency-key'] as string | undefined,
			arrivedAt: Date.now(),
		};
		log.push(entry);
		changes.emit('change');

		outgoing.on('error', () => {});
		if (failure) {
			entry.status = failure.status;
			finished(entry);
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
								finished(entry);
								incoming.socket.destroy();
							});
							return;
						}
						outgoing.writeHead(response.statusCode ?? 502, response.headers);
						response.pipe(outgoing);
						response.on('end', () => finished(entry));
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
			void Promise.all([options.beforeForward?.(entry, Buffer.concat(chunks)), ...gates]).then(
				forward,
			);
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
		release(key) {
			const entry = holdOf(key);
			entry.released = true;
			for (const go of entry.held.splice(0)) go();
		},
		until(done, timeoutMs = 30_000) {
			return new Promise<void>((resolve, reject) => {
				const check = () => {
					if (!done(log)) return;
					changes.off('change', check);
					clearTimeout(deadline);
					resolve();
				};
				const deadline = setTimeout(() => {
					changes.off('change', check);
					reject(new Error(`the proxy's log did not get there in ${timeoutMs} ms`));
				}, timeoutMs);
				changes.on('change', check);
				check();
			});
		},
		async close() {
			for (const gathering of gatherings.values()) clearTimeout(gathering.quiet);
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
