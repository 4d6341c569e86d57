/**
 * Child processes of the bench: the reference server, the bare node:http baseline and the asset
 * uploader each run in a process of their own, so that client and server never share an event loop
 * (and so that a process's resident memory can be read from /proc).
 */
import { fork, type ChildProcess } from 'child_process';
import { join } from 'path';

export interface ChildMessage {
	type: string;
	[key: string]: unknown;
}

export interface Child {
	process: ChildProcess;
	pid: number;
	/** The next message of the given type (rejects if the child exits or reports an error first). */
	next<T extends ChildMessage = ChildMessage>(type: string, timeoutMs?: number): Promise<T>;
	send(message: ChildMessage): void;
	stop(): Promise<void>;
}

/**
 * Forks `bench/dist/bench/<script>.js`. BENCH_CPU_PROF=<dir> adds `--cpu-prof` to every child (the
 * profiles are written when the child exits), which is how the figures in docs/performance.md were
 * looked into.
 */
export function startChild(script: string, env: NodeJS.ProcessEnv = {}): Child {
	const execArgv = process.env.BENCH_CPU_PROF
		? [
				'--cpu-prof',
				`--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`,
				`--cpu-prof-name=${script}-${Date.now()}.cpuprofile`,
			]
		: [];
	const child = fork(join(__dirname, '..', `${script}.js`), [], {
		env: { ...process.env, ...env },
		execArgv,
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	const queue: ChildMessage[] = [];
	const waiters: Array<{
		type: string;
		resolve: (m: ChildMessage) => void;
		reject: (e: Error) => void;
	}> = [];
	let exited: Error | undefined;

	const deliver = () => {
		for (let i = 0; i < waiters.length; i++) {
			const waiter = waiters[i];
			const error = queue.find((m) => m.type === 'error');
			if (error) {
				waiters.splice(i--, 1);
				waiter.reject(new Error(`${script}: ${String(error.message)}`));
				continue;
			}
			const index = queue.findIndex((m) => m.type === waiter.type);
			if (index >= 0) {
				waiters.splice(i--, 1);
				waiter.resolve(queue.splice(index, 1)[0]);
			} else if (exited) {
				waiters.splice(i--, 1);
				waiter.reject(exited);
			}
		}
	};
	child.on('message', (message: ChildMessage) => {
		queue.push(message);
		deliver();
	});
	child.on('exit', (code, signal) => {
		exited = new Error(`${script} exited (code ${code}, signal ${signal})`);
		deliver();
	});

	return {
		process: child,
		pid: child.pid ?? -1,
		next<T extends ChildMessage>(type: string, timeoutMs = 120_000) {
			return new Promise<T>((resolve, reject) => {
				const timer = setTimeout(
					() => reject(new Error(`${script}: no "${type}" within ${timeoutMs} ms`)),
					timeoutMs,
				);
				waiters.push({
					type,
					resolve: (m) => {
						clearTimeout(timer);
						resolve(m as T);
					},
					reject: (e) => {
						clearTimeout(timer);
						reject(e);
					},
				});
				deliver();
			});
		},
		send(message) {
			child.send(message);
		},
		async stop() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
			await gone;
			clearTimeout(timer);
		},
	};
}

/** In a child: report a failure to the parent and exit non-zero. */
export function failChild(error: unknown): never {
	// n8n's run data may hold an error that is not an Error instance: keep its message.
	const message =
		error instanceof Error
			? (error.stack ?? error.message)
			: String((error as { message?: unknown } | null)?.message ?? JSON.stringify(error));
	process.send?.({ type: 'error', message });
	process.stderr.write(`${message}\n`);
	// Let the IPC message go out before exiting.
	setTimeout(() => process.exit(1), 100);
	throw error;
}
