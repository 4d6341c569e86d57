/**
 * A real n8n (tools/n8n-runtime/: n8n 2.x on its own Node 24) for the bench, through the helpers `npm start`
 * and the end-to-end tests use (scripts/lib/install.js, n8n.js, process.js and stack.js), typed here. A user folder in a
 * temporary directory with this package staged as a community package; credentials and workflows
 * imported with the CLI; a workflow run with `n8n execute`, which prints the run with its data.
 */
import { randomBytes } from 'crypto';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import { log, tempDir } from './context';
import { timed } from './stats';

/** The repository, from bench/dist/bench/lib (the scripts are plain JavaScript, not compiled here). */
const ROOT = join(__dirname, '..', '..', '..', '..');

export interface NodeRun {
	/** Epoch milliseconds when the node started, and how long its execute() took. */
	startTime: number;
	executionTime: number;
	error?: { message: string };
}

export interface WorkflowRun {
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message: string; description?: string; node?: { name: string } };
		};
	};
}

interface ExecuteResult {
	code: number | null;
	run?: WorkflowRun;
	stdout: string;
	stderr: string;
	failed: boolean;
}

/** The parts of scripts/lib/ (install.js, n8n.js, process.js) used here. */
interface Runtime {
	ensureRuntime(options: {
		log: (message: string) => void;
	}): Promise<{ n8n: string; node: string }>;
	freePort(): Promise<number>;
	n8nEnv(options: {
		userFolder: string;
		port: number;
		brokerPort: number;
		logLevel?: string;
	}): NodeJS.ProcessEnv;
	stagePackage(userFolder: string): string;
	executeWorkflow(
		id: string,
		options: { env: NodeJS.ProcessEnv; timeoutMs?: number },
	): Promise<ExecuteResult>;
	nodeItems(run: WorkflowRun, nodeName: string): Array<Record<string, unknown>>;
	n8nFolder(userFolder: string): string;
	startN8n(options: {
		env: NodeJS.ProcessEnv;
		port: number;
		logFile: string;
	}): Promise<{ stop(graceMs?: number): Promise<unknown> }>;
	setupOwner(baseUrl: string, owner: Record<string, string>): Promise<unknown>;
	login(baseUrl: string, owner: { email: string; password: string }): Promise<string>;
}

/** A credential in n8n's import format: `data` in plain text, encrypted by `n8n import:credentials`. */
export interface ImportedCredential {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

/** The parts of scripts/lib/stack.js used here. */
interface Stack {
	importCredentials(
		env: NodeJS.ProcessEnv,
		userFolder: string,
		credentials: ImportedCredential[],
	): Promise<unknown>;
	importWorkflows(env: NodeJS.ProcessEnv, userFolder: string, files: string[]): Promise<unknown>;
	publishWorkflow(env: NodeJS.ProcessEnv, id: string): Promise<unknown>;
}

/* eslint-disable @typescript-eslint/no-require-imports */
const runtime = {
	...require(join(ROOT, 'scripts', 'lib', 'install.js')),
	...require(join(ROOT, 'scripts', 'lib', 'n8n.js')),
	...require(join(ROOT, 'scripts', 'lib', 'process.js')),
	...require(join(ROOT, 'scripts', 'lib', 'rest.js')),
} as Runtime;
const stack = require(join(ROOT, 'scripts', 'lib', 'stack.js')) as Stack;
/* eslint-enable @typescript-eslint/no-require-imports */

/** The items a node output in a run (its first run, main output 0); throws when the node failed. */
export const nodeItems = (run: WorkflowRun, nodeName: string) => runtime.nodeItems(run, nodeName);

/** A free TCP port on 127.0.0.1 (the runtime's, as `npm start` picks its ports). */
export const freePort = () => runtime.freePort();
/** Installs the n8n runtime unless it is installed and up to date. */
export const ensureRuntime = () => runtime.ensureRuntime({ log });

export interface RealN8n {
	/** n8n's version and its Node's, from the runtime's install marker. */
	version: { n8n: string; node: string };
	importCredentials(credentials: ImportedCredential[]): Promise<void>;
	/** Workflows as n8n exports them ({id, name, nodes, connections, settings}). */
	importWorkflows(workflows: Array<{ id: string }>): Promise<void>;
	/** `n8n execute --id`: the run, the wall time of the whole CLI process (start-up included) and its CPU time. */
	execute(
		id: string,
		timeoutMs: number,
	): Promise<{ run: WorkflowRun; wallMs: number; cpu: CpuTime }>;
	/** `n8n publish:workflow`: the workflow is active from the next start. */
	publish(id: string): Promise<void>;
	/** `n8n start` (production webhooks served), with extra environment; resolves once n8n answers. */
	start(extraEnv?: Record<string, string>): Promise<StartedN8n>;
	/** n8n's SQLite database file (open it read-only). */
	databaseFile: string;
}

export interface StartedN8n {
	/** http://127.0.0.1:<port> */
	url: string;
	/** A REST call as the editor makes it, logged in as the owner (set up on the first call). */
	rest(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
	stop(): Promise<void>;
}

/** CPU milliseconds the n8n process spent between two epoch times (lib/cpu-sampler.ts). */
export type CpuTime = (fromMs: number, toMs: number) => number;

/** Reads the sampler's lines; between two times, the difference of the last samples at or before each. */
function readCpuSamples(file: string): CpuTime {
	const samples = readFileSync(file, 'utf8')
		.trim()
		.split('\n')
		.map((line) => line.split(' ').map(Number));
	const at = (ms: number) => {
		let cpu = samples[0]?.[1] ?? 0;
		for (const [time, micros] of samples) if (time <= ms) cpu = micros;
		return cpu / 1000;
	};
	return (fromMs, toMs) => at(toMs) - at(fromMs);
}

/**
 * Installs the runtime when missing (as `npm start` and the end-to-end tests do), stages the built
 * package (dist/: run `npm run build` first) and returns a handle on a fresh n8n user folder. The
 * folder is removed with the bench's other temporary folders.
 */
export async function prepareRealN8n(): Promise<RealN8n> {
	const version = await runtime.ensureRuntime({ log });
	const userFolder = tempDir('peer-n8n-user-');
	const port = await runtime.freePort();
	// Log level info: `n8n execute` prints the run through its logger at that level.
	const env = runtime.n8nEnv({
		userFolder,
		port,
		brokerPort: await runtime.freePort(),
		logLevel: 'info',
	});
	runtime.stagePackage(userFolder);
	const owner: Owner = {
		email: 'owner@bench.example.com',
		firstName: 'Bench',
		lastName: 'Owner',
		password: `Bench-1a${randomBytes(12).toString('base64url')}`,
	};
	return {
		version,
		databaseFile: join(runtime.n8nFolder(userFolder), 'database.sqlite'),
		async publish(id) {
			await stack.publishWorkflow(env, id);
		},
		start: async (extraEnv = {}) =>
			await startN8n({ ...env, ...extraEnv }, port, userFolder, owner),
		async importCredentials(credentials) {
			await stack.importCredentials(env, userFolder, credentials);
		},
		async importWorkflows(workflows) {
			const dir = tempDir('peer-n8n-workflows-');
			const files = workflows.map((workflow) => {
				const file = join(dir, `${workflow.id}.json`);
				writeFileSync(file, JSON.stringify(workflow));
				return file;
			});
			await stack.importWorkflows(env, userFolder, files);
		},
		async execute(id, timeoutMs) {
			const samples = join(tempDir('peer-n8n-cpu-'), 'cpu.txt');
			const sampled = {
				...env,
				// BENCH_CPU_PROF=<dir>: n8n's process writes a CPU profile there too, like the children.
				NODE_OPTIONS: [
					`--require "${join(__dirname, 'cpu-sampler.js')}"`,
					...(process.env.BENCH_CPU_PROF
						? ['--cpu-prof', `--cpu-prof-dir="${process.env.BENCH_CPU_PROF}"`]
						: []),
				].join(' '),
				BENCH_CPU_SAMPLES: samples,
			};
			const { result, ms } = await timed(() =>
				runtime.executeWorkflow(id, { env: sampled, timeoutMs }),
			);
			if (result.failed || !result.run) {
				const error = result.run?.data.resultData.error;
				const where = error
					? `${error.node?.name ?? ''}: ${error.message} ${error.description ?? ''}`
					: `exit ${result.code}`;
				throw new Error(
					`n8n execute --id=${id} failed: ${where}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`,
				);
			}
			return { run: result.run, wallMs: ms, cpu: readCpuSamples(samples) };
		},
	};
}

// A type, not an interface: the runtime's owner parameter is a string record.
type Owner = {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
};

async function startN8n(
	env: NodeJS.ProcessEnv,
	port: number,
	userFolder: string,
	/** The user folder's owner: set up on the first start, logged in on every later one. */
	owner: Owner,
): Promise<StartedN8n> {
	const url = `http://127.0.0.1:${port}`;
	const n8n = await runtime.startN8n({
		env,
		port,
		logFile: join(userFolder, 'n8n.log'),
	});
	let cookie: string | undefined;
	return {
		url,
		async rest(method, path, body) {
			if (cookie === undefined) {
				await runtime.setupOwner(url, owner);
				cookie = await runtime.login(url, owner);
			}
			const response = await fetch(`${url}/rest${path}`, {
				method,
				headers: {
					'content-type': 'application/json',
					cookie,
					'browser-id': 'site-management-start',
				},
				body: body === undefined ? undefined : JSON.stringify(body),
			});
			const text = await response.text();
			return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined };
		},
		async stop() {
			await n8n.stop();
		},
	};
}
