'use strict';
/**
 * The stack as `npm start` builds it (scripts/start.js: reference server, demo tenant and pages, AI
 * stand-in, n8n with this package, imported credentials and examples, the owner account), started as
 * a child process in a temporary folder on free ports. The package must be built already.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../../../scripts/lib/runtime');
const processes = require('../../../scripts/lib/process');

const READY_LINE = 'Site Management stack is running';

async function startStack({ log = () => {}, timeoutMs = 10 * 60 * 1000 } = {}) {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'site-ui-'));
	const ports = {
		n8n: await processes.freePort(),
		broker: await processes.freePort(),
		server: await processes.freePort(),
		ai: await processes.freePort(),
		mail: await processes.freePort(),
	};
	const logFile = path.join(folder, 'start.log');
	const out = fs.openSync(logFile, 'a');
	const child = spawn(process.execPath, [path.join(runtime.ROOT, 'scripts', 'start.js')], {
		cwd: runtime.ROOT,
		env: {
			...process.env,
			SITE_START_SKIP_BUILD: '1',
			SITE_START_DATA: folder,
			N8N_PORT: String(ports.n8n),
			N8N_RUNNERS_BROKER_PORT: String(ports.broker),
			SITE_SERVER_PORT: String(ports.server),
			SITE_AI_PORT: String(ports.ai),
			SITE_MAIL_PORT: String(ports.mail),
		},
		stdio: ['ignore', out, out],
	});
	fs.closeSync(out);
	const { exited, stop: stopChild } = processes.watchExit(child);
	const stop = async () => {
		await stopChild(60000);
	};

	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const text = fs.readFileSync(logFile, 'utf8');
		if (text.includes(READY_LINE)) break;
		const exit = exited();
		if (exit || Date.now() > deadline) {
			await stop();
			throw new Error(
				`npm start did not come up (${exit ? `exit ${exit.code}` : 'timeout'}):\n${text.slice(-3000)}`,
			);
		}
		await processes.sleep(500);
	}
	const state = JSON.parse(fs.readFileSync(path.join(folder, 'stack.json'), 'utf8'));
	log(`stack up in ${folder}: n8n :${ports.n8n}, reference server :${ports.server}`);
	return {
		folder,
		logFile,
		state,
		n8nUrl: `http://127.0.0.1:${ports.n8n}`,
		serverUrl: `http://127.0.0.1:${ports.server}`,
		async stop() {
			await stop();
			if (!process.env.SITE_UI_KEEP) fs.rmSync(folder, { recursive: true, force: true });
		},
	};
}

/** A stack started earlier by startStack (its description written to `file`); left running. */
function attachStack(file) {
	return { ...JSON.parse(fs.readFileSync(file, 'utf8')), stop: async () => {} };
}

module.exports = { startStack, attachStack };
