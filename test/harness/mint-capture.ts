/**
 * A loopback forwarder to put in a Managed Tenant credential's Admin Base URL. It passes every
 * request on to the reference server unchanged and records the tokens the mint
 * (`POST /api/tenant/token`) hands out: node runs keep the tokens they mint to themselves (nothing is
 * stored in n8n's credential), and the server keeps only hashes, so this is how a test learns them.
 *
 * `afterMint`, when set, runs after a token was issued and before the answer goes back to the node
 * (e.g. to revoke that token at once, so that its first use is refused).
 */
import { createServer, request as httpRequest, type Server } from 'http';
import type { AddressInfo, Socket } from 'net';

interface MintedByNode {
	tenantId: string;
	token: string;
}

export interface MintCapture {
	url: string;
	/** Every token handed out through this forwarder, in the order they were issued. */
	minted: MintedByNode[];
	/** The tokens only. */
	tokens(): string[];
	afterMint?: (minted: MintedByNode) => Promise<void> | void;
	close(): Promise<void>;
}

const readAll = async (stream: NodeJS.ReadableStream): Promise<Buffer> => {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
};

export async function startMintCapture(target: () => string): Promise<MintCapture> {
	const sockets = new Set<Socket>();
	const capture: MintCapture = {
		url: '',
		minted: [],
		tokens: () => capture.minted.map((entry) => entry.token),
		close: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};

	const server: Server = createServer((incoming, outgoing) => {
		outgoing.on('error', () => {});
		void (async () => {
			const body = await readAll(incoming);
			const upstream = httpRequest(`${target()}${incoming.url ?? '/'}`, {
				method: incoming.method,
				headers: { ...incoming.headers, host: new URL(target()).host },
			});
			upstream.on('error', () => {
				if (!outgoing.headersSent) outgoing.writeHead(502);
				outgoing.end();
			});
			upstream.on('response', (response) => {
				void (async () => {
					const answer = await readAll(response);
					const status = response.statusCode ?? 502;
					const path = new URL(incoming.url ?? '/', 'http://capture.invalid').pathname;
					if (
						incoming.method === 'POST' &&
						path === '/api/tenant/token' &&
						status >= 200 &&
						status < 300
					) {
						const parsed = JSON.parse(answer.toString('utf8')) as {
							token: string;
							tenant_id: string;
						};
						const minted = { tenantId: parsed.tenant_id, token: parsed.token };
						capture.minted.push(minted);
						await capture.afterMint?.(minted);
					}
					outgoing.writeHead(status, response.headers);
					outgoing.end(answer);
				})();
			});
			upstream.end(body);
		})();
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	capture.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return capture;
}
