'use strict';
/**
 * Installing the n8n runtime (runtime.js says which one and whether it is installed): `npm ci` from
 * its lockfile, the Node 24 binary package, the native modules built against that Node's headers,
 * with progress lines, retries of a failed download and a clear word on a full disk.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const {
	RUNTIME,
	RUNTIME_DIR,
	RUNTIME_MODULES,
	NODE_BIN_DIR,
	NODE24,
	NODE24_PACKAGE,
	MARKER,
	INSTALL_LOG,
	INSTALL_ARGS,
	installTreeHash,
	runtimeStatus,
} = require('./runtime');
const { formatSeconds, runCapture, sleep } = require('./process');

function countEntries(dir) {
	try {
		let count = 0;
		for (const entry of fs.readdirSync(dir)) {
			if (entry.startsWith('.')) continue;
			count += entry.startsWith('@') ? fs.readdirSync(path.join(dir, entry)).length : 1;
		}
		return count;
	} catch {
		return 0;
	}
}

/** npm's `http fetch` lines in the install log: how far the download is. */
function countFetches() {
	try {
		return (fs.readFileSync(INSTALL_LOG, 'utf8').match(/http fetch GET 200 \S+\.tgz/g) ?? [])
			.length;
	} catch {
		return 0;
	}
}

/**
 * Runs a command with its output appended to the install log; prints a progress line every
 * `everyMs`. Rejects with the log's tail when the command fails.
 */
function runLogged(label, command, args, { cwd, env, log, progress, everyMs = 15000 }) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const out = fs.openSync(INSTALL_LOG, 'a');
		fs.writeSync(out, `\n$ ${command} ${args.join(' ')}   (in ${cwd})\n`);
		const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
		const timer = setInterval(() => {
			log(`  ${label}: ${formatSeconds(Date.now() - started)}${progress ? `, ${progress()}` : ''}`);
		}, everyMs);
		child.on('error', (error) => {
			clearInterval(timer);
			fs.closeSync(out);
			reject(error);
		});
		child.on('exit', (code, signal) => {
			clearInterval(timer);
			fs.closeSync(out);
			if (code === 0) {
				log(`  ${label}: done in ${formatSeconds(Date.now() - started)}`);
				resolve();
				return;
			}
			const tail = fs.readFileSync(INSTALL_LOG, 'utf8').split('\n').slice(-30).join('\n');
			reject(
				new Error(`${label} failed (${signal ?? `exit ${code}`}); see ${INSTALL_LOG}:\n${tail}`),
			);
		});
	});
}

/** Bytes free to this user on the file system that holds `dir`. */
function freeBytes(dir) {
	const stats = fs.statfsSync(dir);
	return stats.bavail * stats.bsize;
}

const GB = 1024 ** 3;
/** About what an install writes: the runtime folder plus npm's cache of the tarballs. */
const INSTALL_NEEDS_BYTES = 4 * GB;
const formatGb = (bytes) => `${(bytes / GB).toFixed(1)} GB`;

/** Whether a failed install ran out of disk: npm's ENOSPC, or next to nothing left. */
function isDiskFull(message, free) {
	return /ENOSPC|no space left/i.test(message) || free < 256 * 1024 ** 2;
}

/**
 * The package step, tried again after a failure that is not a full disk (npm retries single fetches
 * itself; this covers an install that still fails, e.g. a registry reset late in the download).
 */
async function installPackages(folder, baseEnv, log, { attempts = 3, waitMs = 10000 } = {}) {
	for (let attempt = 1; ; attempt += 1) {
		try {
			await runLogged('packages', 'npm', INSTALL_ARGS, {
				cwd: RUNTIME_DIR,
				env: baseEnv,
				log,
				progress: () =>
					`${countFetches()} package downloads so far, ${countEntries(RUNTIME_MODULES)} folders`,
			});
			return;
		} catch (error) {
			const free = freeBytes(RUNTIME_DIR);
			if (isDiskFull(error.message, free)) {
				throw new Error(
					`the disk is full: installing ${folder}/node_modules needs about ${formatGb(INSTALL_NEEDS_BYTES)} free, and ${formatGb(free)} is left on ${RUNTIME_DIR}. Free some space (old temporary folders, ~/.npm/_cacache) and run again.\n${error.message}`,
				);
			}
			if (attempt >= attempts) throw error;
			log(
				`  packages: attempt ${attempt} of ${attempts} failed; the end of ${folder}/install.log:`,
			);
			for (const line of error.message.split('\n').slice(-8)) log(`    ${line}`);
			await sleep(waitMs * attempt);
		}
	}
}

/** How long a test's beforeAll may wait for ensureRuntime on a fresh machine. */
const INSTALL_TIMEOUT_MS = 30 * 60 * 1000;

/** Installs the runtime when it is missing or out of date. Prints progress through `log`. */
async function ensureRuntime({ log = console.log, force = false } = {}) {
	const status = runtimeStatus();
	if (status.ready && !force) return status.marker;
	try {
		return await installRuntime(status, { log, force });
	} catch (error) {
		// Said in the progress output too: a test runner prints a beforeAll error once per test, far below.
		const lines = error.message.split('\n');
		log(`n8n runtime install failed: ${[lines[0], ...lines.slice(1).slice(-15)].join('\n  ')}`);
		throw error;
	}
}

async function installRuntime(status, { log, force }) {
	const started = Date.now();
	const folder = path.basename(RUNTIME_DIR);
	log(
		`n8n runtime: ${force ? 'reinstalling' : status.reason}; installing n8n${RUNTIME.bundledNode ? ' and Node 24' : ''} into ${folder}/node_modules`,
	);
	log(
		`  (the first time takes about 5 to 7 minutes and 3 GB; the log goes to ${folder}/install.log)`,
	);
	fs.writeFileSync(INSTALL_LOG, `n8n runtime install, ${new Date().toISOString()}\n`);
	fs.rmSync(MARKER, { force: true });
	const free = freeBytes(RUNTIME_DIR);
	log(
		`  ${formatGb(free)} free on this disk; the install needs about ${formatGb(INSTALL_NEEDS_BYTES)}${free < INSTALL_NEEDS_BYTES ? ' (it may not fit)' : ''}`,
	);
	const baseEnv = {
		...process.env,
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
		// npm's own retries of one fetch, with longer waits than its defaults (2 retries, up to 60 s).
		npm_config_fetch_retries: process.env.npm_config_fetch_retries ?? '5',
		npm_config_fetch_retry_maxtimeout: process.env.npm_config_fetch_retry_maxtimeout ?? '120000',
	};
	// `npm ci`: the lockfile's packages and nothing else, the same on every machine. (Four optional
	// @msgpackr-extract prebuilds for other platforms exist in this registry only up to 3.0.4; the
	// overrides in tools/n8n-runtime/package.json pin them there so the lockfile lists them, as npm ci needs.)
	log(
		`[1/3] npm ci --ignore-scripts, from ${folder}/package-lock.json (n8n and its ~2,000 packages)`,
	);
	await installPackages(folder, baseEnv, log);

	if (RUNTIME.bundledNode) {
		log("[2/3] Node 24 binary (the npm registry's `node` package)");
		await runLogged('node@24', 'npm', ['rebuild', 'node', '--foreground-scripts'], {
			cwd: RUNTIME_DIR,
			env: baseEnv,
			log,
		});
		if (!fs.existsSync(NODE24)) throw new Error(`the node package did not provide ${NODE24}`);
	} else {
		log(`[2/3] n8n runs on this machine's Node ${process.version} (${NODE24})`);
	}

	log(
		`[3/3] native modules ${RUNTIME.rebuild.join(' and ')}, built for Node ${RUNTIME.bundledNode ? '24' : process.version} (sqlite3 compiles: about 2 minutes)`,
	);
	const nativeEnv = {
		...baseEnv,
		// Optimised less than the modules' own -O2/-O3: SQLite compiles in about half the CPU time, and
		// these runtimes serve tests and the demo, not production.
		CFLAGS: '-O1',
		CXXFLAGS: '-O1',
		PATH: `${NODE_BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
		npm_config_nodedir: RUNTIME.bundledNode ? NODE24_PACKAGE : systemNodeDir(),
	};
	if (!nativeEnv.npm_config_nodedir) delete nativeEnv.npm_config_nodedir;
	await runLogged(
		'native modules',
		'npm',
		['rebuild', ...RUNTIME.rebuild, '--foreground-scripts'],
		{
			cwd: RUNTIME_DIR,
			env: nativeEnv,
			log,
		},
	);

	const check = await runCapture(
		NODE24,
		['-e', "require('sqlite3'); process.stdout.write(process.version)"],
		{
			cwd: path.join(RUNTIME_MODULES, 'n8n'),
			timeoutMs: 60000,
		},
	);
	if (check.code !== 0) throw new Error(`sqlite3 does not load under ${NODE24}:\n${check.stderr}`);
	const n8nVersion = JSON.parse(
		fs.readFileSync(path.join(RUNTIME_MODULES, 'n8n', 'package.json'), 'utf8'),
	).version;
	const marker = {
		treeHash: installTreeHash(),
		node: check.stdout.trim(),
		n8n: n8nVersion,
		installedAt: new Date().toISOString(),
	};
	fs.writeFileSync(MARKER, `${JSON.stringify(marker, null, 2)}\n`);
	log(
		`n8n runtime ready: n8n ${n8nVersion} on Node ${marker.node} (${formatSeconds(Date.now() - started)})`,
	);
	return marker;
}

/**
 * The headers of the Node running this script, for node-gyp, when they are installed next to it
 * (e.g. /usr/include/node of Debian's nodejs): node-gyp would otherwise download them.
 */
function systemNodeDir() {
	const prefix = path.resolve(path.dirname(process.execPath), '..');
	return fs.existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

module.exports = { ensureRuntime, installPackages, isDiskFull, INSTALL_TIMEOUT_MS };
