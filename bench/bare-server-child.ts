/**
 * The baseline of the server rows: a bare node:http server that reads the request body and answers
 * fixed JSON: the very bytes the reference server answered to the same request (captured by the
 * parent), so both send the same amount. Responses come as JSON in BENCH_BARE_RESPONSES, keyed
 * "METHOD /path".
 */
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import { failChild } from './lib/children';

interface FixedResponse {
	status: number;
	body: string;
}

function main() {
	const fixed = JSON.parse(process.env.BENCH_BARE_RESPONSES ?? '{}') as Record<
		string,
		FixedResponse
	>;
	const prepared = new Map(
		Object.entries(fixed).map(([key, response]) => [
			key,
			{ status: response.status, body: Buffer.from(response.body) },
		]),
	);
	const server = createServer((request, response) => {
		const path = (request.url ?? '/').split('?')[0];
		const answer = prepared.get(`${request.method} ${path}`) ?? {
			status: 404,
			body: Buffer.from('{"error":"not_found"}'),
		};
		request.resume();
		request.on('end', () => {
			response.writeHead(answer.status, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': answer.body.length,
			});
			response.end(answer.body);
		});
	});
	// Fastify's default is 72 s; keep connections open alike.
	server.keepAliveTimeout = 72_000;
	server.listen(0, '127.0.0.1', () => {
		const { port } = server.address() as AddressInfo;
		process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: process.pid });
	});
	const stop = () => server.close(() => process.exit(0));
	process.on('SIGTERM', stop);
	process.on('disconnect', stop);
}

try {
	main();
} catch (error) {
	failChild(error);
}
