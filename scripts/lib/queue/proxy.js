'use strict';
/**
 * The load balancer in front of a queue-mode n8n: production webhook calls (`/webhook/...`) go to the
 * webhook processors in turn (round robin); everything else (`/webhook-test/...`, the editor, /rest)
 * goes to main. For the repeat tests it can lose answers: with `dropEveryNth` set, every n-th webhook
 * call is forwarded and answered upstream, but the caller's connection is cut before the answer, as
 * when a load balancer or network loses a response (the sender then delivers again).
 */
const http = require('node:http');

/**
 * @param {{ main: string, webhooks: string[] }} upstreams base URLs (http://127.0.0.1:port)
 * @returns {Promise<{ url: string, port: number, counts: Map<string, number>, setDropEveryNth(n: number): void, close(): Promise<void> }>}
 */
async function startProxy({ main, webhooks }, { port = 0 } = {}) {
	let next = 0;
	let webhookCalls = 0;
	let dropEveryNth = 0;
	const counts = new Map(webhooks.map((url) => [url, 0]));
	const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

	const server = http.createServer((request, response) => {
		const isProduction = request.url.startsWith('/webhook/');
		const target = isProduction ? webhooks[next++ % webhooks.length] : main;
		const drop = isProduction && dropEveryNth > 0 && ++webhookCalls % dropEveryNth === 0;
		if (isProduction) counts.set(target, counts.get(target) + 1);
		const { hostname, port: targetPort } = new URL(target);
		const upstream = http.request(
			{
				host: hostname,
				port: targetPort,
				method: request.method,
				path: request.url,
				headers: request.headers,
				agent,
			},
			(answer) => {
				if (drop) {
					// The receiver did its work; the caller never hears of it.
					answer.resume();
					answer.on('end', () => request.socket.destroy());
					return;
				}
				response.writeHead(answer.statusCode, answer.headers);
				answer.pipe(response);
			},
		);
		upstream.on('error', (error) => {
			if (response.headersSent) response.destroy();
			else
				response
					.writeHead(502, { 'content-type': 'application/json' })
					.end(JSON.stringify({ error: 'bad_gateway', message: error.message }));
		});
		request.pipe(upstream);
	});
	await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
	const actualPort = server.address().port;
	return {
		url: `http://127.0.0.1:${actualPort}`,
		port: actualPort,
		counts,
		setDropEveryNth(n) {
			dropEveryNth = n;
			webhookCalls = 0;
		},
		close: () =>
			new Promise((resolve) => {
				agent.destroy();
				server.closeAllConnections?.();
				server.close(() => resolve());
			}),
	};
}

module.exports = { startProxy };
