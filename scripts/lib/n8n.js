'use strict';
/**
 * Running n8n from the runtime (runtime.js): the environment of an isolated n8n, staging this
 * package as a community package, the n8n CLI (import, execute, publish, export), and `n8n start`
 * (or worker, webhook) until it answers.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const {
	ROOT,
	RUNTIME,
	RUNTIME_DIR,
	NODE24,
	N8N_BIN,
	PACKAGE_NAME,
	installTreeHash,
} = require('./runtime');
const { formatSeconds, httpGet, runCapture, waitFor, watchExit } = require('./process');
const { timed } = require('./timings');

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

/**
 * The files of a migrated, empty n8n folder (`.n8n/`): the database and the config that holds the
 * encryption key. n8n migrates an empty database on the first command in a folder, which costs
 * about as much as the command itself; a folder seeded from a copy starts at the second.
 */
const SEED_FILES = /^(config|database\.sqlite(-wal|-shm)?)$/;

/**
 * Gives a new user folder the database and config of a migrated, empty one (see SEED_FILES). The
 * first call for an installed runtime makes that template (one `n8n import:credentials` of nothing,
 * in a folder of its own under the temporary directory, named after the runtime's install); later
 * calls, from any test file or process, copy it. Each folder has its own copy from then on.
 */
async function seedUserFolder(userFolder, env) {
	const template = path.join(
		os.tmpdir(),
		`site-n8n-template-${path.basename(RUNTIME_DIR)}-${installTreeHash().slice(0, 16)}`,
	);
	if (!fs.existsSync(template)) await makeTemplate(template, env);
	const target = n8nFolder(userFolder);
	fs.mkdirSync(target, { recursive: true });
	for (const file of fs.readdirSync(template))
		fs.copyFileSync(path.join(template, file), path.join(target, file));
}

async function makeTemplate(template, env) {
	const folder = fs.mkdtempSync(`${template}.making-`);
	const nothing = path.join(folder, 'no-credentials.json');
	fs.writeFileSync(nothing, '[]');
	await n8nCliOk(['import:credentials', `--input=${nothing}`], {
		env: { ...env, N8N_USER_FOLDER: folder },
	});
	const made = path.join(folder, 'template');
	fs.mkdirSync(made);
	for (const file of fs.readdirSync(n8nFolder(folder)).filter((name) => SEED_FILES.test(name)))
		fs.copyFileSync(path.join(n8nFolder(folder), file), path.join(made, file));
	// Another process may have made it meanwhile: theirs is as good, the rename then fails.
	try {
		fs.renameSync(made, template);
	} catch (error) {
		if (!fs.existsSync(template)) throw error;
	}
	fs.rmSync(folder, { recursive: true, force: true });
}

/** Runs one n8n CLI command (import:…, execute, publish:workflow, export:…) and collects its output. */
async function n8nCli(args, { env, timeoutMs = 240000, stdoutToFile = false } = {}) {
	return await timed('n8n cli', args[0], () =>
		runCapture(NODE24, [N8N_BIN, ...args], { cwd: ROOT, env, timeoutMs, stdoutToFile }),
	);
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
	// Under heavy load the CLI process was seen ending by a signal after printing a finished,
	// successful run: the run is what it says; a signal before that is a failure.
	const finishedOk = run?.finished === true && run.status === 'success';
	const exitOk = result.code === 0 || (result.code === null && finishedOk);
	return {
		code: result.code,
		signal: result.signal,
		run,
		stdout: result.stdout,
		stderr: result.stderr,
		failed: !exitOk || !run || Boolean(run.data?.resultData?.error),
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

/**
 * Starts `n8n start` (or `command`: `worker`, `webhook`, with `args`) and resolves once
 * `/healthz/readiness` answers 200 on `port` (a worker answers on its health port). Its output goes to
 * `logFile` (and to `echo`, a function taking lines, when given). Returns {process, url, stop()}.
 * With `detached`, n8n runs in its own process group (a terminal's Ctrl-C does not reach it).
 */
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
	const { exited, exitPromise, exitError, stop: stopChild } = watchExit(child);
	exitPromise.then(() => out.end());

	const url = `http://127.0.0.1:${port}`;
	const stop = async (graceMs = 30000) => await stopChild(graceMs);

	try {
		await timed('n8n boot', command, () =>
			waitFor(
				'n8n to answer /healthz/readiness',
				async () => (await httpGet(`${url}/healthz/readiness`)) === 200,
				{
					timeoutMs,
					everyMs: 500,
					untimed: true,
					stopIf: () =>
						exitError((how) => `n8n exited during start-up (${how}):\n${recent.join('\n')}`),
				},
			),
		);
	} catch (error) {
		if (exited()) throw error;
		await stop(5000);
		throw new Error(`n8n was not ready within ${formatSeconds(timeoutMs)}:\n${recent.join('\n')}`);
	}
	return { process: child, url, stop, exitPromise, recentLines: () => recent };
}

module.exports = {
	n8nEnv,
	n8nFolder,
	stagePackage,
	seedUserFolder,
	n8nCliOk,
	executeWorkflow,
	nodeItems,
	startN8n,
};
