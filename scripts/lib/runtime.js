'use strict';
/**
 * The n8n runtime of this repository: n8n 2.x on its own Node 24, kept in tools/n8n-runtime/ with its own
 * package.json and lockfile and installed on first use into tools/n8n-runtime/node_modules (ignored by git,
 * never part of the root install). Used by scripts/start.js (`npm start`), scripts/install-runtime.js
 * and the end-to-end tests in e2e/n8n/.
 *
 * Install recipe (the registry and this machine, as they are): `npm ci --ignore-scripts` (n8n@2.41.1
 * with the override linkedom@0.18.14), then `npm rebuild node` (the `node` package's install step
 * fetches the Node 24 binary package), then `npm rebuild sqlite3 isolated-vm` under Node 24 with
 * Node 24's own headers (shipped in the binary package), so nothing is downloaded from outside the
 * npm registry. The other native modules stay unbuilt; only nodes this project does not use need them.
 *
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime selects the n8n 1.x runtime instead (RUNTIMES below): n8n 1.x on
 * the machine's own Node 20, `npm rebuild sqlite3` against that Node's headers, and the legacy
 * expression engine (isolated-vm is not built).
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
// SITE_N8N_RUNTIME_DIR: another runtime folder (tools/n8n1-runtime/, or a copy of tools/n8n-runtime/ to try the installer).
const RUNTIME_DIR = process.env.SITE_N8N_RUNTIME_DIR
	? path.resolve(ROOT, process.env.SITE_N8N_RUNTIME_DIR)
	: path.join(ROOT, 'tools', 'n8n-runtime');
const RUNTIME_MODULES = path.join(RUNTIME_DIR, 'node_modules');

/** The install command: exactly the lockfile's packages (`npm ci` refuses a lockfile out of step with package.json). */
const INSTALL_ARGS = ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'];

/**
 * What differs between the runtime folders. `bundledNode`: n8n runs on the Node of the registry's
 * `node` package (installed into the folder), else on the Node running this script. `rebuild`: the
 * native modules built after the install. `installArgs`: the npm command (tools/n8n1-runtime/ keeps `npm install`, as its lockfile was made and
 * tested that way). `env`: added to every n8n process. `publish`: the CLI
 * command that makes a workflow active from the next start (n8n 1.x has no publish:workflow).
 */
const RUNTIMES = {
	'n8n-runtime': {
		bundledNode: true,
		installArgs: INSTALL_ARGS,
		rebuild: ['sqlite3', 'isolated-vm'],
		env: {},
		publish: (id) => ['publish:workflow', `--id=${id}`],
		// The AI Agent hands a tool's error back to the model (n8n 2.x).
		agentReturnsToolErrors: true,
	},
	'n8n1-runtime': {
		bundledNode: false,
		installArgs: ['install', ...INSTALL_ARGS.slice(1)],
		rebuild: ['sqlite3'],
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
		publish: (id) => ['update:workflow', `--id=${id}`, '--active=true'],
		// n8n 1.123's AI Agent stops the run at a tool's error instead of handing it to the model.
		agentReturnsToolErrors: false,
	},
};
// A copy of tools/n8n-runtime/ under another name behaves like tools/n8n-runtime/.
const RUNTIME = RUNTIMES[path.basename(RUNTIME_DIR)] ?? RUNTIMES['n8n-runtime'];
const NODE_BIN_DIR = RUNTIME.bundledNode
	? path.join(RUNTIME_MODULES, 'node', 'bin')
	: path.dirname(process.execPath);
// The Node that runs n8n (Node 24 for tools/n8n-runtime/; the name is kept from when there was one runtime).
const NODE24 = RUNTIME.bundledNode ? path.join(NODE_BIN_DIR, 'node') : process.execPath;
const NODE24_PACKAGE = path.join(
	RUNTIME_MODULES,
	'node',
	'node_modules',
	`node-${process.platform}-${process.arch}`,
);
const N8N_BIN = path.join(RUNTIME_MODULES, 'n8n', 'bin', 'n8n');
const MARKER = path.join(RUNTIME_MODULES, '.site-runtime.json');
const INSTALL_LOG = path.join(RUNTIME_DIR, 'install.log');
const PACKAGE_NAME = 'n8n-nodes-site-management';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function readLock(dir = RUNTIME_DIR) {
	return JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
}

/** Whether a lockfile entry installs on this machine (npm skips optional packages for another os or cpu). */
function installsHere(entry, platform = process.platform, arch = process.arch) {
	const allows = (list, value) => {
		if (!Array.isArray(list) || list.length === 0) return true;
		if (list.includes(`!${value}`)) return false;
		const positive = list.filter((item) => !item.startsWith('!'));
		return positive.length === 0 || positive.includes(value);
	};
	return allows(entry.os, platform) && allows(entry.cpu, arch);
}

/**
 * What an install puts on this machine: every lockfile package that installs here, with its version
 * and integrity. Entries for other platforms do not count, so adding them to the lockfile (which
 * `npm ci` needs) does not make an install out of date.
 */
function installTreeHash(lock = readLock(), platform = process.platform, arch = process.arch) {
	const tree = Object.entries(lock.packages ?? {})
		.filter(([, entry]) => installsHere(entry, platform, arch))
		.map(([where, entry]) => [
			where,
			entry.version ?? null,
			entry.integrity ?? null,
			entry.dependencies ?? null,
		]);
	return crypto.createHash('sha256').update(JSON.stringify(tree)).digest('hex');
}

/** The version the lockfile pins for a top-level package. */
function lockedVersion(name, lock = readLock()) {
	return lock.packages?.[`node_modules/${name}`]?.version;
}

/**
 * Whether an install marker matches the lockfile. Markers from before the tree hash (they hashed
 * the files whole) match when n8n and Node are the versions the lockfile pins.
 */
function markerMatches(marker, lock = readLock()) {
	if (marker.treeHash !== undefined) return marker.treeHash === installTreeHash(lock);
	return (
		marker.n8n === lockedVersion('n8n', lock) && marker.node === `v${lockedVersion('node', lock)}`
	);
}

/** {ready, reason}: ready when the last install finished for what the current lockfile installs here. */
function runtimeStatus() {
	if (!fs.existsSync(MARKER)) return { ready: false, reason: 'not installed' };
	let marker;
	try {
		marker = JSON.parse(fs.readFileSync(MARKER, 'utf8'));
	} catch {
		return { ready: false, reason: 'install marker unreadable' };
	}
	if (!markerMatches(marker))
		return { ready: false, reason: `${path.basename(RUNTIME_DIR)}/package-lock.json changed` };
	if (!fs.existsSync(NODE24) || !fs.existsSync(N8N_BIN))
		return { ready: false, reason: 'files missing' };
	return { ready: true, marker };
}

function formatSeconds(ms) {
	const s = Math.round(ms / 1000);
	return s >= 60 ? `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s` : `${s} s`;
}

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
			await runLogged('packages', 'npm', RUNTIME.installArgs, {
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
	// tools/n8n1-runtime/ keeps `npm install` (RUNTIMES): its lockfile was made and tested that way.
	log(
		`[1/3] npm ${RUNTIME.installArgs[0]} --ignore-scripts, from ${folder}/package-lock.json (n8n and its ~2,000 packages)`,
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

/** A free TCP port on 127.0.0.1. */
function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
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

/**
 * The environment of every n8n process of a stack: isolated user folder, loopback only, no
 * telemetry, personalization, version notifications, templates or banners.
 * n8n keeps its data in `<userFolder>/.n8n` (database.sqlite, config with the encryption key, nodes/).
 */
function n8nEnv({ userFolder, port = 5678, brokerPort = 5679, logLevel = 'info', extra = {} }) {
	const env = {};
	// Nothing from the caller's n8n or DB settings leaks in.
	for (const [key, value] of Object.entries(process.env)) {
		// NODE_ENV=test (set by jest) makes n8n refuse to load nodes.
		if (
			/^(N8N_|DB_|WEBHOOK_URL$|EXECUTIONS_|QUEUE_|GENERIC_TIMEZONE$|NODE_OPTIONS$|NODE_PATH$|NODE_ENV$|JEST_WORKER_ID$)/.test(
				key,
			)
		)
			continue;
		env[key] = value;
	}
	const url = `http://127.0.0.1:${port}/`;
	Object.assign(env, {
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: url,
		N8N_EDITOR_BASE_URL: url,
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LOG_LEVEL: logLevel,
		DB_TYPE: 'sqlite',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		...RUNTIME.env,
		...extra,
	});
	return env;
}

/** `<userFolder>/.n8n`, where n8n keeps its database, config and community packages. */
function n8nFolder(userFolder) {
	return path.join(userFolder, '.n8n');
}

/**
 * Puts the built package where n8n loads community packages from:
 * `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-site-management`, a copy of what `npm pack` ships
 * (package.json, dist/, README.md). Replaced on every call so the latest build is what n8n loads.
 */
function stagePackage(userFolder) {
	const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const entries = [...(rootPackage.n8n?.nodes ?? []), ...(rootPackage.n8n?.credentials ?? [])];
	const missing = entries.filter((entry) => !fs.existsSync(path.join(ROOT, entry)));
	if (missing.length > 0)
		throw new Error(`the package is not built (missing ${missing.join(', ')}): run npm run build`);

	const nodesDir = path.join(n8nFolder(userFolder), 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.mkdirSync(path.dirname(target), { recursive: true });
	const staging = `${target}.staging-${process.pid}`;
	fs.rmSync(staging, { recursive: true, force: true });
	fs.mkdirSync(staging, { recursive: true });
	fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(staging, 'package.json'));
	for (const file of ['README.md', 'LICENSE', 'LICENSE.md']) {
		if (fs.existsSync(path.join(ROOT, file)))
			fs.copyFileSync(path.join(ROOT, file), path.join(staging, file));
	}
	fs.cpSync(path.join(ROOT, 'dist'), path.join(staging, 'dist'), {
		recursive: true,
		filter: (source) => !source.endsWith('.tsbuildinfo'),
	});
	fs.rmSync(target, { recursive: true, force: true });
	fs.renameSync(staging, target);
	// The folder n8n's own community-package installer manages: keep a package.json there that lists us.
	const manifest = path.join(nodesDir, 'package.json');
	let nodesPackage = { name: 'installed-nodes', private: true, dependencies: {} };
	try {
		nodesPackage = JSON.parse(fs.readFileSync(manifest, 'utf8'));
	} catch {
		// first time
	}
	nodesPackage.dependencies = {
		...(nodesPackage.dependencies ?? {}),
		[PACKAGE_NAME]: rootPackage.version,
	};
	fs.writeFileSync(manifest, `${JSON.stringify(nodesPackage, null, 2)}\n`);
	return target;
}

/** Runs one n8n CLI command (import:…, execute, publish:workflow, export:…) and collects its output. */
async function n8nCli(args, { env, timeoutMs = 240000, stdoutToFile = false } = {}) {
	return await runCapture(NODE24, [N8N_BIN, ...args], { cwd: ROOT, env, timeoutMs, stdoutToFile });
}

/** Like n8nCli, but rejects with the command's output when it exits non-zero. */
async function n8nCliOk(args, options) {
	const result = await n8nCli(args, options);
	if (result.code !== 0) {
		throw new Error(
			`n8n ${args.join(' ')} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`.slice(
				0,
				6000,
			),
		);
	}
	return result;
}

/**
 * `n8n execute --id=<id> --rawOutput`: runs a workflow in a CLI process and returns the run
 * ({data: {resultData: {runData, error?}}, status, ...}). The CLI prints log lines before the JSON,
 * so the JSON is taken from the first line that is exactly `{` to the last that is exactly `}`.
 * A failed run is returned too (with `failed: true` and the output), not thrown.
 */
async function executeWorkflow(id, { env, timeoutMs = 240000 } = {}) {
	const result = await n8nCli(['execute', `--id=${id}`, '--rawOutput'], {
		env,
		timeoutMs,
		stdoutToFile: true,
	});
	const run = parseRunJson(result.stdout);
	return {
		code: result.code,
		run,
		stdout: result.stdout,
		stderr: result.stderr,
		failed: result.code !== 0 || !run || Boolean(run.data?.resultData?.error),
	};
}

function parseRunJson(text) {
	const lines = text.split('\n');
	const start = lines.indexOf('{');
	const end = lines.lastIndexOf('}');
	if (start === -1 || end < start) return undefined;
	try {
		return JSON.parse(lines.slice(start, end + 1).join('\n'));
	} catch {
		return undefined;
	}
}

/** The JSON items a node output in a run (first run of the node, main output 0). */
function nodeItems(run, nodeName, { runIndex = 0, output = 0 } = {}) {
	const nodeRuns = run?.data?.resultData?.runData?.[nodeName];
	if (!nodeRuns || !nodeRuns[runIndex]) throw new Error(`node "${nodeName}" did not run`);
	const nodeRun = nodeRuns[runIndex];
	if (nodeRun.error) throw new Error(`node "${nodeName}" failed: ${nodeRun.error.message}`);
	return (nodeRun.data?.main?.[output] ?? []).map((item) => item.json);
}

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
 * Starts `n8n start` (or `command`: `worker`, `webhook`, with `args`) and resolves once
 * `/healthz/readiness` answers 200 on `port` (a worker answers on its health port). Its output goes to
 * `logFile` (and to `echo`, a function taking lines, when given). Returns {process, url, stop()}.
 * With `detached`, n8n runs in its own process group (a terminal's Ctrl-C does not reach it).
 */
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
	return { exited: () => exited, exitPromise, stop };
}

async function startN8n({
	env,
	port,
	logFile,
	echo,
	timeoutMs = 240000,
	detached = false,
	command = 'start',
	args = [],
}) {
	fs.mkdirSync(path.dirname(logFile), { recursive: true });
	const out = fs.createWriteStream(logFile, { flags: 'a' });
	out.write(`\n==== n8n ${command}, ${new Date().toISOString()}\n`);
	// detached: its own process group, so a terminal's Ctrl-C reaches only the caller, which stops it in order.
	const child = spawn(NODE24, [N8N_BIN, command, ...args], {
		cwd: ROOT,
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached,
	});
	let recent = [];
	const onData = (chunk) => {
		out.write(chunk);
		const lines = chunk
			.toString('utf8')
			.split('\n')
			.filter((line) => line.trim() !== '');
		recent = [...recent, ...lines].slice(-40);
		if (echo) for (const line of lines) echo(line);
	};
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	const { exited, exitPromise, stop: stopChild } = watchExit(child);
	exitPromise.then(() => out.end());

	const url = `http://127.0.0.1:${port}`;
	const stop = async (graceMs = 30000) => await stopChild(graceMs);

	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		const exit = exited();
		if (exit)
			throw new Error(
				`n8n exited during start-up (${exit.signal ?? `exit ${exit.code}`}):\n${recent.join('\n')}`,
			);
		if ((await httpGet(`${url}/healthz/readiness`)) === 200)
			return { process: child, url, stop, exitPromise, recentLines: () => recent };
		await sleep(500);
	}
	await stop(5000);
	throw new Error(`n8n was not ready within ${formatSeconds(timeoutMs)}:\n${recent.join('\n')}`);
}

/**
 * Sets up n8n's owner account through the REST API (n8n 2.x asks for one before anything else):
 * `POST /rest/owner/setup`. Answers {created: true} or {created: false} when an owner already exists.
 */
async function setupOwner(baseUrl, owner) {
	const response = await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'site-management-start' },
		body: JSON.stringify(owner),
	});
	const text = await response.text();
	if (response.ok) return { created: true };
	if (response.status === 400 && /already/i.test(text)) return { created: false };
	throw new Error(`owner setup failed: HTTP ${response.status} ${text.slice(0, 500)}`);
}

/** Logs in as the owner; resolves to the cookie header for /rest calls. */
async function login(baseUrl, { email, password }) {
	const response = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'site-management-start' },
		body: JSON.stringify({ emailOrLdapLoginId: email, password }),
	});
	if (!response.ok)
		throw new Error(
			`login failed: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`,
		);
	const cookies =
		typeof response.headers.getSetCookie === 'function'
			? response.headers.getSetCookie()
			: [response.headers.get('set-cookie')];
	return cookies
		.filter(Boolean)
		.map((cookie) => cookie.split(';')[0])
		.join('; ');
}

module.exports = {
	watchExit,
	ROOT,
	RUNTIME_DIR,
	RUNTIME,
	RUNTIME_MODULES,
	NODE24,
	N8N_BIN,
	PACKAGE_NAME,
	INSTALL_LOG,
	INSTALL_ARGS,
	installsHere,
	installTreeHash,
	markerMatches,
	sleep,
	formatSeconds,
	runtimeStatus,
	INSTALL_TIMEOUT_MS,
	ensureRuntime,
	installPackages,
	isDiskFull,
	runCapture,
	freePort,
	portInUse,
	n8nEnv,
	n8nFolder,
	stagePackage,
	n8nCli,
	n8nCliOk,
	executeWorkflow,
	parseRunJson,
	nodeItems,
	startN8n,
	setupOwner,
	login,
	httpGet,
};
