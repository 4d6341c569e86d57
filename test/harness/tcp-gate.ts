/**
 * A TCP pass-through on a fixed local port that can be shut (connections refused, open ones cut) and
 * opened again on the same port: a receiver that goes down and comes back at the same address.
 */
import { createConnection, createServer, type Server, type Socket } from 'net';
import type { AddressInfo } from 'net';

export class TcpGate {
	private server: Server | undefined;
	private readonly sockets = new Set<Socket>();
	port = 0;
	/** Connections accepted while open. */
	connections = 0;

	constructor(private readonly targetPort: number) {}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	get isOpen(): boolean {
		return this.server !== undefined;
	}

	async open(): Promise<this> {
		if (this.server) return this;
		const server = createServer((client) => {
			this.connections++;
			const upstream = createConnection({ host: '127.0.0.1', port: this.targetPort });
			for (const socket of [client, upstream]) {
				this.sockets.add(socket);
				socket.on('close', () => this.sockets.delete(socket));
				socket.on('error', () => {
					client.destroy();
					upstream.destroy();
				});
			}
			client.pipe(upstream);
			upstream.pipe(client);
		});
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(this.port, '127.0.0.1', () => resolve());
		});
		this.server = server;
		this.port = (server.address() as AddressInfo).port;
		return this;
	}

	/** Stops listening (new connections are refused) and cuts every open connection. */
	async shut(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}
