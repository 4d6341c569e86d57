/**
 * A command-line server (the peer mock servers: Prism, json-server) behind a forked child, so that it
 * is stopped like every other child of the bench: on SIGTERM, and also when the bench dies without
 * cleaning up (the IPC channel disconnects), which a process spawned by the bench itself would outlive.
 *
 * BENCH_CLI is JSON {script, args}: a Node script run with this Node, "{port}" in args replaced by a
 * free port. "ready" with the URL goes to the parent once the port accepts connections, which works
 * whatever the CLI prints (the peers run with their logging off).
 */
import { spawn } from 'child_process';
import { connect } from 'net';

import { failChild } from './lib/children';
import { freePort } from './lib/real-n8n';

const READY_TIMEOUT_MS = 60_000;
const KILL_AFTER_MS = 5_000;

const accepts = (port: number) =>
	new Promise<boolean>((resolve) => {
		const socket = connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});

async function main() {
	const { script, args } = JSON.parse(process.env.BENCH_CLI ?? '{}') as {
		script: string;
		args: string[];
	};
	const port = await freePort();
	// Its output goes to the bench's stderr: stdout is the bench's table.
	const cli = spawn(
		process.execPath,
		[script, ...args.map((arg) => arg.replace('{port}', String(port)))],
		{ stdio: ['ignore', 2, 2] },
	);
	let stopping = false;
	cli.on('exit', (code, signal) => {
		if (stopping) process.exit(0);
		try {
			failChild(new Error(`${script} exited (code ${code}, signal ${signal})`));
		} catch {
			// failChild reports, exits shortly and throws for callers that must stop; nothing to stop here.
		}
	});

	const stop = () => {
		if (stopping) return;
		stopping = true;
		if (cli.exitCode !== null || cli.signalCode !== null) process.exit(0);
		cli.kill('SIGTERM');
		setTimeout(() => cli.kill('SIGKILL'), KILL_AFTER_MS).unref();
	};
	process.on('SIGTERM', stop);
	process.on('disconnect', stop);
	// Whichever way this process ends (a failure included), the CLI does not outlive it.
	process.on('exit', () => cli.kill('SIGKILL'));

	const deadline = Date.now() + READY_TIMEOUT_MS;
	while (!(await accepts(port))) {
		if (Date.now() > deadline)
			throw new Error(`${script}: port ${port} not open within ${READY_TIMEOUT_MS} ms`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	process.send?.({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: cli.pid });
}

main().catch(failChild);
