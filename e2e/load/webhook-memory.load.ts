/**
 * A webhook receiver that streams its reply without end: the server reads at most
 * 64 KB of a reply and drops the connection. Measured on a server in a process of its own: its peak
 * resident set while a delivery meets a receiver streaming 1 GB grows less than 64 MB (reading the
 * whole reply grew it by more than the reply).
 */
import { fork, type ChildProcess } from 'child_process';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { join } from 'path';

const MB = 1024 * 1024;
const adminToken = `admin-mem-${Date.now()}`;
let child: ChildProcess;
let receiver: http.Server;
/** The server's URL. */
let base: string;

function ask<T>(message: string): Promise<T> {
	return new Promise((resolve) => {
		child.once('message', (answer) => resolve(answer as T));
		child.send(message);
	});
}

beforeAll(async () => {
	child = fork(join(__dirname, '..', '..', 'test', 'harness', 'server-process.js'), [], {
		env: { ...process.env, ADMIN_TOKEN: adminToken },
		stdio: 'inherit',
	});
	base = await new Promise<string>((resolve) =>
		child.once('message', (m) => resolve((m as { url: string }).url)),
	);
});

afterAll(async () => {
	receiver?.closeAllConnections();
	receiver?.close();
	if (child.connected) {
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.send('stop');
		await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
	}
	child.kill();
});

it('a receiver streaming 1 GB: the server process grows < 64 MB and the delivery is recorded', async () => {
	let written = 0;
	let socketClosed!: () => void;
	const closed = new Promise<void>((resolve) => (socketClosed = resolve));
	receiver = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(200, { 'content-type': 'application/octet-stream' });
			const chunk = Buffer.alloc(256 * 1024, 'x');
			const pump = () => {
				while (written < 1024 * MB) {
					written += chunk.length;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
				res.end();
			};
			res.on('close', () => socketClosed());
			pump();
		});
	});
	await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
	const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

	const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
	await fetch(`${base}/api/tenant`, {
		method: 'POST',
		headers: admin,
		body: JSON.stringify({ id: 'mem' }),
	});
	const token = (
		(await (
			await fetch(`${base}/api/tenant/token`, {
				method: 'POST',
				headers: admin,
				body: JSON.stringify({ id: 'mem' }),
			})
		).json()) as { token: string }
	).token;
	const tenant = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
	expect(
		(
			await fetch(`${base}/api/settings`, {
				method: 'POST',
				headers: tenant,
				body: JSON.stringify({ contact_form_webhook_url: receiverUrl }),
			})
		).status,
	).toBe(200);

	const before = await ask<{ rss: number; peak: number }>('reset-peak');
	const started = Date.now();
	expect(
		(
			await fetch(`${base}/forms/mem/contact`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{"message":"hi"}',
			})
		).status,
	).toBe(202);
	let delivery: { state: string; last_status: number | null } | undefined;
	while (Date.now() - started < 60_000) {
		const list = (await (
			await fetch(`${base}/api/contact-form/deliveries`, { headers: tenant })
		).json()) as { data: { state: string; last_status: number | null }[] };
		delivery = list.data[0];
		if (delivery && delivery.state !== 'pending') break;
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	await closed;
	const after = await ask<{ rss: number; peak: number }>('memory');
	const growth = after.peak - before.rss;
	console.log(
		`[reliability] webhook reply cap: receiver_wrote_mb=${(written / MB).toFixed(1)} server_rss_before_mb=${(before.rss / MB).toFixed(0)} server_peak_growth_mb=${(growth / MB).toFixed(1)} seconds=${((Date.now() - started) / 1000).toFixed(1)}`,
	);
	expect(delivery).toMatchObject({ state: 'delivered', last_status: 200 });
	expect(growth).toBeLessThan(64 * MB);
	expect(written).toBeLessThan(64 * MB);
});
