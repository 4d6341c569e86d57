'use strict';
/**
 * Stoplight Prism (a dev dependency) on a free loopback port, for the conformance tests (`prism
 * proxy`) and the bench (`prism mock`): the document is written to a temporary file, and the promise
 * resolves once Prism listens.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { freePort, portInUse, waitFor } = require('./process');

/**
 * Starts `prism <mode> <document file> ...modeArgs`. Returns {url, output(), stop()}; output() is
 * everything Prism printed so far (the conformance tests read its log).
 */
async function startPrism(mode, document, modeArgs = []) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-prism-'));
	const file = path.join(dir, 'openapi.json');
	fs.writeFileSync(file, JSON.stringify(document));
	const port = await freePort();
	const cli = require.resolve('@stoplight/prism-cli/dist/index.js');
	const args = [cli, mode, file, ...modeArgs, '--host', '127.0.0.1', '--port', String(port)];
	const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let output = '';
	const keep = (chunk) => (output += chunk.toString('utf8'));
	child.stdout.on('data', keep);
	child.stderr.on('data', keep);
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
			`prism ${mode} on port ${port}`,
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

module.exports = { startPrism };
