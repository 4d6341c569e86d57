/**
 * The reference server in a process of its own (see lib/children.ts). Options come as JSON in
 * BENCH_SERVER_OPTIONS; the parent learns the URL and admin token from a "ready" message.
 */
import { startServer, type ServerOptions } from '../reference-server/src';
import { failChild } from './lib/children';

async function main() {
	const options = JSON.parse(process.env.BENCH_SERVER_OPTIONS ?? '{}') as Partial<ServerOptions>;
	const server = await startServer({ port: 0, logger: false, ...options });
	process.send?.({ type: 'ready', url: server.url, adminToken: server.adminToken, pid: process.pid });
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
