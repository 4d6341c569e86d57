/**
 * Stoplight Prism's validating proxy in front of a running server: every exchange that goes through
 * it is checked against the OpenAPI document, request and response, and what does not conform comes
 * back in the `sl-violations` header (without --errors the server's own answer is passed through).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// scripts/lib is CommonJS without types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { freePort, waitFor, portInUse } = require('../../../scripts/lib/process') as {
	freePort(): Promise<number>;
	waitFor<T>(
		what: string,
		check: () => Promise<T>,
		options: { timeoutMs: number; everyMs: number; stopIf: () => Error | undefined },
	): Promise<T>;
	portInUse(port: number): Promise<boolean>;
};

export interface Violation {
	location: string[];
	severity: string;
	code?: string | number;
	message: string;
}

export interface Prism {
	url: string;
	/** Prism's output so far, for a failure message. */
	output(): string;
	stop(): Promise<void>;
}

/** The violations Prism reported on one answer ([] when it sent no sl-violations header). */
export function violationsOf(headers: Record<string, string | string[] | undefined>): Violation[] {
	const header = headers['sl-violations'];
	return header === undefined ? [] : (JSON.parse(String(header)) as Violation[]);
}

/** Starts `prism proxy` on a free loopback port with the document written to a temporary file. */
export async function startPrism(document: object, upstream: string): Promise<Prism> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-prism-'));
	const file = path.join(dir, 'openapi.json');
	fs.writeFileSync(file, JSON.stringify(document));
	const port = await freePort();
	const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
	const args = [cli, 'proxy', file, upstream, '--host', '127.0.0.1', '--port', String(port)];
	const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	const stop = async () => {
		if (child.exitCode === null && child.signalCode === null) {
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGTERM');
			await exited;
		}
		fs.rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitFor(
			`prism proxy on port ${port}`,
			async () => /Prism is listening/.test(output) && (await portInUse(port)),
			{
				timeoutMs: 60000,
				everyMs: 100,
				stopIf: () =>
					child.exitCode === null ? undefined : new Error(`prism exited early: ${output}`),
			},
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { url: `http://127.0.0.1:${port}`, output: () => output, stop };
}
