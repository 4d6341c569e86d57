/**
 * Stoplight Prism's mock server (`prism mock`, a dev dependency) serving an OpenAPI document: the
 * answer any server generated from the document would give, for the server-vs-prism figures.
 */
import { spawn } from 'child_process';
import { writeFileSync } from 'fs';
import { join } from 'path';

import { tempDir } from './context';

/* eslint-disable @typescript-eslint/no-require-imports */
const processLib = require(
	join(__dirname, '..', '..', '..', '..', 'scripts', 'lib', 'process.js'),
) as {
	freePort(): Promise<number>;
	portInUse(port: number): Promise<boolean>;
	waitFor<T>(
		what: string,
		check: () => Promise<T>,
		options: { timeoutMs: number; everyMs: number; stopIf: () => Error | undefined },
	): Promise<T>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

export interface PrismMock {
	url: string;
	stop(): Promise<void>;
}

/** Starts `prism mock` on a free loopback port; resolves once it listens. */
export async function startPrismMock(document: object): Promise<PrismMock> {
	const file = join(tempDir('bench-prism-'), 'openapi.json');
	writeFileSync(file, JSON.stringify(document));
	const port = await processLib.freePort();
	const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
	const child = spawn(
		process.execPath,
		[cli, 'mock', file, '--host', '127.0.0.1', '--port', String(port)],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	let output = '';
	const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000));
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.kill('SIGTERM');
		await exited;
	};
	try {
		await processLib.waitFor(
			`prism mock on port ${port}`,
			async () => /Prism is listening/.test(output) && (await processLib.portInUse(port)),
			{
				timeoutMs: 60_000,
				everyMs: 100,
				stopIf: () =>
					child.exitCode === null ? undefined : new Error(`prism exited early: ${output}`),
			},
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { url: `http://127.0.0.1:${port}`, stop };
}
