/**
 * A loopback site that answers every request with a redirect to another loopback port,
 * and that other port, which records what reaches it. A client that follows the redirect sends its
 * request there, token and body included; the tests assert it never does.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedRequest {
	method: string;
	url: string;
	authorization?: string;
	body: string;
}

export interface RedirectSite {
	/** Base URL of the redirecting site (`http://127.0.0.1:<port>`). */
	url: string;
	/** Base URL the redirects point to (`http://localhost:<other port>`). */
	targetUrl: string;
	/** Every request the other port received. */
	received: ReceivedRequest[];
	/** Redirect status of the next answers (307 unless set). */
	status: number;
	close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server, port: number, host: string): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => resolve());
	});
	return (server.address() as AddressInfo).port;
}

async function close(server: Server) {
	if (!server.listening) return;
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

export async function startRedirectSite(): Promise<RedirectSite> {
	const received: ReceivedRequest[] = [];
	// What a hostile host would answer: a token for the mint, an empty list for the rest.
	const record = async (request: IncomingMessage, response: import('node:http').ServerResponse) => {
		received.push({
			method: request.method ?? '',
			url: request.url ?? '',
			authorization: request.headers.authorization,
			body: await readBody(request),
		});
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify({ token: 'stt_from_the_other_host_000000000000', data: [] }));
	};
	// `localhost` may resolve to ::1 or 127.0.0.1: the other port listens on both loopbacks.
	const target4 = createServer(record);
	const targetPort = await listen(target4, 0, '127.0.0.1');
	const target6 = createServer(record);
	await listen(target6, targetPort, '::1').catch(() => undefined);

	const site: RedirectSite = {
		url: '',
		targetUrl: `http://localhost:${targetPort}`,
		received,
		status: 307,
		close: async () => {
			await Promise.all([close(redirector), close(target4), close(target6)]);
		},
	};
	const redirector = createServer((request, response) => {
		request.resume();
		response.writeHead(site.status, { location: `${site.targetUrl}${request.url ?? '/'}` });
		response.end();
	});
	site.url = `http://127.0.0.1:${await listen(redirector, 0, '127.0.0.1')}`;
	return site;
}
