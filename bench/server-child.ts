/**
 * The reference server in a process of its own (see lib/children.ts). Options come as JSON in
 * BENCH_SERVER_OPTIONS; the parent learns the URL and admin token from a "ready" message.
 */
import { startServer, type ServerOptions } from '../reference-server/src';
import { failChild, type ChildMessage } from './lib/children';
import { answerSeed } from './lib/seed';

async function main() {
	const options = JSON.parse(process.env.BENCH_SERVER_OPTIONS ?? '{}') as Partial<ServerOptions>;
	// The contact-form rows submit thousands of forms from one address: no form rate limit.
	const server = await startServer({
		port: 0,
		logger: false,
		formRatePerAddress: 0,
		formRatePerTenant: 0,
		// The bench's webhook receivers and n8n listen on loopback, which webhooks reach only when allowed.
		webhookAllow: 'loopback',
		...options,
	});
	// BENCH_SERVER_DELAY_MS: every request is handed to the server this much later, as if the server
	// were that far away (the batching row uses it to separate latency from the client's CPU).
	const delayMs = Number(process.env.BENCH_SERVER_DELAY_MS ?? 0);
	if (delayMs > 0) {
		const http = server.app.server;
		const listeners = http.listeners('request') as Array<(...args: unknown[]) => void>;
		http.removeAllListeners('request');
		http.on('request', (...args: unknown[]) => {
			setTimeout(() => listeners.forEach((listener) => listener.apply(http, args)), delayMs);
		});
	}
	// Pages seeded by the server's own store (lib/seed.ts), for the rows that list large tenants.
	process.on('message', (message: ChildMessage) => answerSeed(server.app.site.store, message));
	process.send?.({
		type: 'ready',
		url: server.url,
		adminToken: server.adminToken,
		pid: process.pid,
	});
	const stop = () => {
		server.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGTERM', stop);
	process.on('disconnect', stop);
}

main().catch(failChild);
