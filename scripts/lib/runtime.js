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
 * This module says which runtime and whether it is installed; installing it is install.js, running
 * n8n is n8n.js, n8n's REST calls are rest.js, and small process helpers are process.js.
 *
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime selects the n8n 1.x runtime instead (RUNTIMES below): n8n 1.x on
 * the machine's own Node 20, `npm rebuild sqlite3` against that Node's headers, and the legacy
 * expression engine (isolated-vm is not built).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
// SITE_N8N_RUNTIME_DIR: another runtime folder (tools/n8n1-runtime/, or a copy of tools/n8n-runtime/ to try the installer).
const RUNTIME_DIR = process.env.SITE_N8N_RUNTIME_DIR
	? path.resolve(ROOT, process.env.SITE_N8N_RUNTIME_DIR)
	: path.join(ROOT, 'tools', 'n8n-runtime');
const RUNTIME_MODULES = path.join(RUNTIME_DIR, 'node_modules');

/**
 * The install command: exactly the lockfile's packages (`npm ci` refuses a lockfile out of step with
 * package.json). `--prefer-offline`: a package already in npm's cache is taken from there without
 * asking the registry again (the lockfile pins each by its integrity); a slow registry made the
 * revalidations of the runtime's ~2,000 packages take minutes.
 */
const INSTALL_ARGS = [
	'ci',
	'--ignore-scripts',
	'--prefer-offline',
	'--no-audit',
	'--no-fund',
	'--loglevel=http',
];

/**
 * What differs between the runtime folders. `bundledNode`: n8n runs on the Node of the registry's
 * `node` package (installed into the folder), else on the Node running this script. `rebuild`: the
 * native modules built after the install. `env`: added to every n8n process. `publish`: the CLI
 * command that makes a workflow active from the next start (n8n 1.x has no publish:workflow).
 */
const RUNTIMES = {
	'n8n-runtime': {
		bundledNode: true,
		rebuild: ['sqlite3', 'isolated-vm'],
		env: {},
		publish: (id) => ['publish:workflow', `--id=${id}`],
		// The AI Agent hands a tool's error back to the model (n8n 2.x).
		agentReturnsToolErrors: true,
		// n8n's human review of an agent's tool calls (the …HitlTool nodes, n8n 2.x).
		reviewsToolCalls: true,
		// A manual run (POST /rest/workflows/:id/run) runs the stored workflow.
		manualRunSendsWorkflow: false,
		// The Data Table node creates a table (Table > Create) and finds one By Name.
		dataTableNodeCreatesTables: true,
		// A workflow created through the REST API keeps the ID it is given.
		restKeepsWorkflowIds: true,
		// A waiting execution's resume URL is refused unless its signature matches its query.
		checksResumeSignatures: true,
	},
	'n8n1-runtime': {
		bundledNode: false,
		rebuild: ['sqlite3'],
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
		publish: (id) => ['update:workflow', `--id=${id}`, '--active=true'],
		// n8n 1.123's AI Agent stops the run at a tool's error instead of handing it to the model.
		agentReturnsToolErrors: false,
		// n8n 1.123 has no human review of tool calls: a workflow holding a review node does not run.
		reviewsToolCalls: false,
		// A manual run runs the workflow the request sends (workflowData), as the 1.x editor does.
		manualRunSendsWorkflow: true,
		// n8n 1.123's Data Table node has rows only, its table picked from a list or by ID: a person
		// creates the table (Overview > Data tables, or n8n's REST API).
		dataTableNodeCreatesTables: false,
		// n8n 1.123's REST API gives a new workflow an ID of its own: only `n8n import:workflow` keeps one.
		restKeepsWorkflowIds: false,
		// n8n 1.123 resumes a waiting execution whatever its resume URL's signature says.
		checksResumeSignatures: false,
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

module.exports = {
	ROOT,
	RUNTIME_DIR,
	RUNTIME,
	RUNTIME_MODULES,
	NODE_BIN_DIR,
	NODE24,
	NODE24_PACKAGE,
	N8N_BIN,
	MARKER,
	PACKAGE_NAME,
	INSTALL_LOG,
	INSTALL_ARGS,
	installsHere,
	installTreeHash,
	markerMatches,
	runtimeStatus,
};
