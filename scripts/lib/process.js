'use strict';
/**
 * Small process and network helpers the scripts and tests share: waiting, running a command,
 * ports, a bare HTTP GET, following a child process to its exit, and polling until something holds.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const { timed } = require('./timings');

const ROOT = path.resolve(__dirname, '..', '..');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function formatSeconds(ms) {
	const s = Math.round(ms / 1000);
	return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}

/** Runs a command and collects its output. */
function runCapture(
	command,
	args,
	{ cwd = ROOT, env = process.env, timeoutMs = 300000, input, stdoutToFile = false } = {},
) {
	// stdoutToFile: the child writes its standard output to a temporary file instead of a pipe. Node
	// writes to a pipe asynchronously, so a CLI that prints megabytes and then exits at once (n8n
	// execute --rawOutput) can lose the end of its output; writes to a file are synchronous.
	const outFile = stdoutToFile
		? path.join(os.tmpdir(), `site-n8n-stdout-${crypto.randomBytes(6).toString('hex')}.txt`)
		: undefined;
	const outFd = outFile ? fs.openSync(outFile, 'w', 0o600) : undefined;
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd, env, stdio: ['pipe', outFd ?? 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		const readOutFile = () => {
			if (!outFile) return;
			fs.closeSync(outFd);
			stdout = fs.readFileSync(outFile, 'utf8');
			fs.rmSync(outFile, { force: true });
		};
		child.stdout?.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
		child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			readOutFile();
			reject(
				new Error(
					`${path.basename(command)} ${args.join(' ')} timed out after ${formatSeconds(timeoutMs)}\n${stdout}\n${stderr}`,
				),
			);
		}, timeoutMs);
		child.on('error', (error) => {
			clearTimeout(timer);
			readOutFile();
			reject(error);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			readOutFile();
			resolve({ code, signal, stdout, stderr });
		});
		if (input !== undefined) child.stdin.end(input);
		else child.stdin.end();
	});
}

/**
 * Ports handed out below the kernel's range for outgoing connections. A port taken from that range
 * (listen on 0) is free when chosen but not when n8n binds it later: any outgoing connection may get
 * it as its local port meanwhile (the bench once lost a run to "Task Broker's port ... is already in
 * use" that way). Below the range only a server can take it, and the ports handed out are remembered
 * so two callers never get the same one.
 */
const LOWEST_PORT = 20000;
const handedOut = new Set();

/** The first local port the kernel gives outgoing connections (Linux); below it stays ours to pick. */
function ephemeralLow() {
	try {
		const low = Number(
			fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
		);
		if (Number.isInteger(low) && low > 0) return low;
	} catch {
		// Not Linux: 32768 is below the default range of Linux, macOS and Windows alike.
	}
	return 32768;
}

/** Resolves the port if a server can listen on 127.0.0.1:port now, else undefined. */
function tryListen(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.unref();
		server.once('error', () => resolve(undefined));
		server.listen(port, '127.0.0.1', () => {
			const { port: bound } = server.address();
			server.close(() => resolve(bound));
		});
	});
}

/** A free TCP port on 127.0.0.1, outside the range of outgoing connections when there is room. */
async function freePort() {
	const high = Math.min(ephemeralLow(), 65536);
	for (let attempt = 0; high - LOWEST_PORT >= 1000 && attempt < 50; attempt++) {
		const port = crypto.randomInt(LOWEST_PORT, high);
		if (handedOut.has(port)) continue;
		if ((await tryListen(port)) !== undefined) {
			handedOut.add(port);
			return port;
		}
	}
	const port = await tryListen(0);
	if (port === undefined) throw new Error('No free TCP port on 127.0.0.1');
	return port;
}

/** True when something accepts connections on 127.0.0.1:port. */
function portInUse(port) {
	return new Promise((resolve) => {
		const socket = net.connect({ port, host: '127.0.0.1' });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/** The status code of a GET, or 0 when nothing answered (never throws). */
function httpGet(url, timeoutMs = 5000) {
	return new Promise((resolve) => {
		const request = http.get(url, { timeout: timeoutMs }, (response) => {
			response.resume();
			response.on('end', () => resolve(response.statusCode));
		});
		request.on('timeout', () => request.destroy());
		request.on('error', () => resolve(0));
	});
}

/**
 * Follows a child process to its exit: `exited()` is `{code, signal}` once it has exited (else null),
 * `exitPromise` resolves with it, and `stop(graceMs)` sends SIGTERM, then SIGKILL after `graceMs`, and
 * waits for the exit.
 */
function watchExit(child) {
	let exited = null;
	const exitPromise = new Promise((resolve) =>
		child.on('exit', (code, signal) => resolve((exited = { code, signal }))),
	);
	const stop = async (graceMs) => {
		if (exited) return exited;
		child.kill('SIGTERM');
		const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
		const result = await exitPromise;
		clearTimeout(timer);
		return result;
	};
	// An Error once it has exited (`describe` words it from "exit 1" or the signal), else undefined.
	const exitError = (describe) =>
		exited ? new Error(describe(exited.signal ?? `exit ${exited.code}`)) : undefined;
	return { exited: () => exited, exitPromise, stop, exitError };
}

/**
 * Polls `check` (async; a truthy result ends the wait and is returned; a throw counts as not yet)
 * every `everyMs` until `timeoutMs` passes. `stopIf` (optional) returns an Error to stop at once with,
 * e.g. when the process being waited for has exited. `explain` (optional, async) says on a timeout
 * why it may have run out (the state waited on, a log's tail), so a failure tells more than "timed out".
 * The wait is recorded as a `wait` in the suite timings (timings.js) unless `untimed` is set (a
 * caller that records the wait under its own name).
 */
async function waitFor(what, check, options = {}) {
	if (options.untimed) return await pollUntil(what, check, options);
	return await timed('wait', what, () => pollUntil(what, check, options));
}

async function pollUntil(what, check, { timeoutMs = 30000, everyMs = 250, stopIf, explain }) {
	const deadline = Date.now() + timeoutMs;
	let last;
	while (Date.now() < deadline) {
		const stop = stopIf?.();
		if (stop) throw stop;
		try {
			last = await check();
			if (last) return last;
		} catch (error) {
			last = error;
		}
		await sleep(everyMs);
	}
	let explanation = '';
	if (explain) {
		try {
			explanation = `\n${await explain()}`;
		} catch (error) {
			explanation = `\n(could not say why: ${error.message})`;
		}
	}
	throw new Error(
		`timed out after ${formatSeconds(timeoutMs)} waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}${explanation}`,
	);
}

module.exports = {
	sleep,
	formatSeconds,
	runCapture,
	freePort,
	ephemeralLow,
	portInUse,
	httpGet,
	watchExit,
	waitFor,
};
