/**
 * freePort (scripts/lib/process.js) hands out ports that an outgoing connection cannot take before the
 * caller binds them: below the kernel's range for outgoing local ports, each one once.
 */
import { createServer, connect, type Server } from 'net';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const processes = require('../../scripts/lib/process') as {
	freePort(): Promise<number>;
	ephemeralLow(): number;
};

const listen = (port: number) =>
	new Promise<Server>((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve(server));
	});

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe('freePort', () => {
	it('gives ports below the range of outgoing connections, each one once, free to listen on', async () => {
		const ports: number[] = [];
		for (let i = 0; i < 20; i++) ports.push(await processes.freePort());

		expect(new Set(ports).size).toBe(ports.length);
		for (const port of ports) {
			expect(port).toBeGreaterThanOrEqual(20000);
			expect(port).toBeLessThan(processes.ephemeralLow());
		}
		const servers = await Promise.all(ports.map(listen));
		await Promise.all(servers.map(close));
	});

	it('gives a port other than those outgoing connections hold', async () => {
		const server = await listen(0);
		const { port } = server.address() as { port: number };
		const sockets = await Promise.all(
			Array.from(
				{ length: 20 },
				() =>
					new Promise<ReturnType<typeof connect>>((resolve, reject) => {
						const socket = connect({ port, host: '127.0.0.1' }, () => resolve(socket));
						socket.once('error', reject);
					}),
			),
		);
		const held = new Set(sockets.map((socket) => Number(socket.localPort)));

		const given = await processes.freePort();

		expect(held.has(given)).toBe(false);
		expect(given).toBeLessThan(Math.min(...held));
		sockets.forEach((socket) => socket.destroy());
		await close(server);
	});
});
