import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { JsonOutcome, JsonTask } from './protocol';

/**
 * Runs under ts-jest, where worker.ts has no compiled twin: the worker compiles the TypeScript it
 * requires with the typescript package (the same code, not a copy of it).
 */
const TYPESCRIPT_LOADER = `
const { workerData } = require('node:worker_threads');
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const ts = require(workerData.typescript);
Module._extensions['.ts'] = (module, filename) => {
	const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true };
	module._compile(ts.transpileModule(readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions }).outputText, filename);
};
require(workerData.file);
`;

function startWorker(): Worker {
	const compiled = join(__dirname, 'worker.js');
	if (existsSync(compiled)) return new Worker(compiled);
	// Whoever compiles the server must compile worker.ts too: nothing imports it (bench/tsconfig.json).
	if (!existsSync(join(__dirname, 'worker.ts')))
		throw new Error(`The JSON worker is missing: ${compiled}`);
	return new Worker(TYPESCRIPT_LOADER, {
		eval: true,
		workerData: { file: join(__dirname, 'worker.ts'), typescript: require.resolve('typescript') },
	});
}

interface Job {
	task: JsonTask;
	resolve: (outcome: JsonOutcome) => void;
	reject: (error: Error) => void;
}

/**
 * A few worker threads that parse large JSON bodies (worker.ts), one body each at a time, so the
 * event loop never spends long on one. Workers start on first use and do not keep the process alive.
 */
export class JsonWorkerPool {
	private readonly idle: Worker[] = [];
	private readonly busy = new Map<Worker, Job>();
	private readonly queue: Job[] = [];
	private closed = false;

	constructor(private readonly size: number) {}

	/** The task's bytes are transferred: the caller must not use them afterwards. */
	run(task: JsonTask): Promise<JsonOutcome> {
		if (this.closed) return Promise.reject(new Error('The JSON worker pool is closed.'));
		return new Promise((resolve, reject) => {
			this.queue.push({ task, resolve, reject });
			this.dispatch();
		});
	}

	async close(): Promise<void> {
		this.closed = true;
		const workers = [...this.idle, ...this.busy.keys()];
		this.idle.length = 0;
		await Promise.all(workers.map((worker) => worker.terminate()));
		for (const job of this.queue.splice(0))
			job.reject(new Error('The JSON worker pool is closed.'));
	}

	private dispatch() {
		while (this.queue.length > 0 && (this.idle.length > 0 || this.busy.size < this.size)) {
			const worker = this.idle.pop() ?? this.spawn();
			const job = this.queue.shift()!;
			this.busy.set(worker, job);
			const { bytes } = job.task;
			// A buffer that is a view on a larger one (a pooled allocation) is copied, not transferred.
			const own =
				bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
					? bytes
					: new Uint8Array(bytes);
			worker.postMessage({ ...job.task, bytes: own }, [own.buffer as ArrayBuffer]);
		}
	}

	private spawn(): Worker {
		const worker = startWorker();
		worker.unref();
		worker.on('message', (outcome: JsonOutcome) => {
			const job = this.busy.get(worker);
			this.busy.delete(worker);
			if (!this.closed) this.idle.push(worker);
			job?.resolve(outcome);
			this.dispatch();
		});
		// A worker that dies fails its body (a 500) and is replaced by the next dispatch.
		const fail = (error: Error) => {
			const job = this.busy.get(worker);
			this.busy.delete(worker);
			const index = this.idle.indexOf(worker);
			if (index >= 0) this.idle.splice(index, 1);
			job?.reject(error);
			if (!this.closed) this.dispatch();
		};
		worker.on('error', fail);
		worker.on('exit', (code) => fail(new Error(`A JSON worker exited (code ${code}).`)));
		return worker;
	}
}
