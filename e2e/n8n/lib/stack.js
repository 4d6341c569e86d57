'use strict';
/**
 * The steps the real-n8n test files share when they build a stack of their own: a progress log, a
 * reference server (in memory, ephemeral port) and its tenants, an n8n user folder with the package
 * staged, workflows written to files for `n8n import:workflow`, `n8n start` with a logged-in owner,
 * and the clean-up.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const runtime = require('../../../scripts/lib/runtime');
const n8nCommands = require('../../../scripts/lib/n8n');
const processes = require('../../../scripts/lib/process');
const n8nRest = require('../../../scripts/lib/rest');
const stack = require('../../../scripts/lib/stack');

const { startServer } = require(path.join(runtime.ROOT, 'reference-server', 'dist', 'index.js'));

/**
 * Poll Times that poll every 10 seconds: n8n refuses an entry that fires more than once a minute, but
 * takes several; six custom crons (`0 * * * * *`, `10 * * * * *`, …).
 */
const FAST_POLLS = [0, 10, 20, 30, 40, 50].map((second) => ({
	mode: 'custom',
	cronExpression: `${second} * * * * *`,
}));

/** A `say(message)` that writes `[label +Ns] message` to stderr, N counted from now. */
function progressLog(label) {
	const started = Date.now();
	return (message) =>
		process.stderr.write(`[${label} +${Math.round((Date.now() - started) / 1000)}s] ${message}\n`);
}

/**
 * The reference server in memory on an ephemeral port, with a fresh admin token; `options` add to it.
 * Its delivery worker's log lines (one per webhook attempt: time, delivery id, attempt, status, next
 * retry) are kept in `server.deliveryLog`, for deliveryReport().
 */
async function startReferenceServer(options = {}) {
	const deliveryLog = [];
	const server = await startServer({
		port: 0,
		memory: true,
		adminToken: `sat_e2e${crypto.randomBytes(24).toString('base64url')}`,
		logger: 'info',
		logStream: {
			write(line) {
				if (line.includes('"delivery_id"')) deliveryLog.push(JSON.parse(line));
			},
		},
		...options,
	});
	return Object.assign(server, { deliveryLog });
}

/** The last `lines` lines of a text file ('' when it cannot be read). */
function fileTail(file, lines = 40) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '';
	}
}

/**
 * What a failed wait on a contact-form delivery needs to tell why (`explain` of waitFor): the site's
 * record of the submission's delivery, every attempt the server logged for it with the time between
 * attempts and the receiver's answer, and the tail of n8n's log. `site`: a siteClient of the tenant;
 * `submissionId`: the submission, or undefined for every delivery of the tenant.
 */
async function deliveryReport({ server, site, submissionId, userFolder }) {
	const listed = (await site('GET', '/api/contact-form/deliveries?per_page=100')).data?.data ?? [];
	const deliveries = listed.filter(
		(delivery) => submissionId === undefined || delivery.submission_id === submissionId,
	);
	const ids = new Set(deliveries.map((delivery) => delivery.id));
	let previous;
	const attempts = server.deliveryLog
		.filter((line) => ids.has(line.delivery_id))
		.map((line) => {
			const since = previous === undefined ? '' : ` (+${line.time - previous} ms)`;
			previous = line.time;
			return `  ${new Date(line.time).toISOString()}${since} ${line.delivery_id} attempt ${line.attempt}: ${line.msg}${line.status === undefined ? '' : `, HTTP ${line.status}`}${line.retry_in_ms === undefined ? '' : `, next in ${line.retry_in_ms} ms`}`;
		});
	return [
		`deliveries of ${submissionId ?? 'the tenant'}: ${JSON.stringify(deliveries)}`,
		`delivery attempts the server logged:\n${attempts.join('\n') || '  none'}`,
		userFolder ? `n8n log, last lines:\n${fileTail(path.join(userFolder, 'n8n.log'))}` : '',
	].join('\n');
}

/** Creates a tenant on the server and issues it a token: `{ token, client }` (a siteClient). */
async function addTenant(server, id) {
	const admin = stack.siteClient(server.url, server.adminToken);
	expect((await admin('POST', '/api/tenant', { id })).status).toBe(200);
	const token = (await admin('POST', '/api/tenant/token', { id })).data.token;
	return { token, client: stack.siteClient(server.url, token) };
}

/**
 * A temporary n8n user folder with the package staged, two free ports and n8n's environment for it
 * (`envOf`: n8nCommands.n8nEnv unless given): `{ userFolder, port, n8nUrl, env }`.
 */
async function prepareN8nFolder(prefix, { envOf = n8nCommands.n8nEnv } = {}) {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const port = await processes.freePort();
	const env = envOf({ userFolder, port, brokerPort: await processes.freePort() });
	n8nCommands.stagePackage(userFolder);
	return { userFolder, port, n8nUrl: `http://127.0.0.1:${port}`, env };
}

/** Each workflow as `<dir>/<id>.json` (dir created); resolves to the files, for importWorkflows. */
function writeWorkflowFiles(dir, workflows) {
	fs.mkdirSync(dir, { recursive: true });
	return workflows.map((workflow) => {
		const file = path.join(dir, `${workflow.id}.json`);
		fs.writeFileSync(file, JSON.stringify(workflow));
		return file;
	});
}

/** A node of a test workflow, as n8n's workflow JSON has it. */
function workflowNode({ name, type, typeVersion, parameters, position, credentials, ...extra }) {
	return {
		parameters,
		id: crypto.randomUUID(),
		name,
		type,
		typeVersion,
		position,
		...(credentials ? { credentials } : {}),
		...extra,
	};
}

/** A node's `credentials` entry for a credential `{ id, name, type }`. */
function credentialRef({ id, name, type }) {
	return { [type]: { id, name } };
}

/**
 * Imports the credentials (each `{ id, name, type, data }`) and the workflows (written to
 * `<userFolder>/<folder>/<id>.json`) into an n8n folder from prepareN8nFolder.
 */
async function importFixtures({ env, userFolder }, { credentials, workflows, folder }) {
	await stack.importCredentials(env, userFolder, credentials);
	await stack.importWorkflows(
		env,
		userFolder,
		writeWorkflowFiles(path.join(userFolder, folder), workflows),
	);
}

/**
 * A test workflow, inactive, keeping its manual executions: `links` are [from, to] node names, each
 * a main connection (several from one node run side by side).
 */
function workflowJson({ id, name, nodes, links }) {
	const connections = {};
	for (const [from, to] of links) {
		connections[from] ??= { main: [[]] };
		connections[from].main[0].push({ node: to, type: 'main', index: 0 });
	}
	return {
		id,
		name,
		nodes,
		connections,
		active: false,
		settings: { executionOrder: 'v1', saveManualExecutions: true },
		pinData: {},
	};
}

/** The links of a chain of node names, each to the next (for workflowJson). */
const chainLinks = (names) => names.slice(1).map((to, i) => [names[i], to]);

/** `n8n start` on a folder from prepareN8nFolder, its log in the folder's n8n.log. */
async function startN8nIn({ env, port, userFolder }) {
	return await n8nCommands.startN8n({ env, port, logFile: path.join(userFolder, 'n8n.log') });
}

/**
 * Sets up n8n's owner (owner@<name>.example.com, a fresh password) and logs in: resolves to the
 * cookie for /rest calls. n8n 1.x answers its readiness check a moment before its REST routes exist
 * (404 until then): the set-up is asked until it answers.
 */
async function ownerCookie(n8nUrl, name) {
	const owner = {
		email: `owner@${name}.example.com`,
		firstName: 'E2E',
		lastName: 'Owner',
		password: `E2e-${crypto.randomBytes(12).toString('base64url')}`,
	};
	await stack.waitFor("n8n's owner set-up", async () => await n8nRest.setupOwner(n8nUrl, owner), {
		timeoutMs: 60000,
		everyMs: 500,
	});
	return await n8nRest.login(n8nUrl, owner);
}

/**
 * Imports the credentials the examples name into a stack's n8n folder (`site`: { server, demoToken,
 * env, userFolder }): the site's (admin, demo tenant, managed) and, from `extra`, the AI endpoint
 * (aiUrl, aiApiKey) and the MCP token (mcpToken).
 */
async function importSiteCredentials(site, extra = {}) {
	return await stack.importCredentials(
		site.env,
		site.userFolder,
		stack.credentialsFor({
			serverUrl: site.server.url,
			adminToken: site.server.adminToken,
			tenantToken: site.demoToken,
			...extra,
		}),
	);
}

/**
 * `n8n execute --id` that must succeed: resolves to the run; a failed execution throws with the
 * node and message of its error and the end of n8n's output. `log`: told which workflow runs;
 * `record`: given every run, failed or not.
 */
async function executeOk(workflowId, { env, log, record }) {
	log(`n8n execute --id=${workflowId}`);
	const result = await n8nCommands.executeWorkflow(workflowId, { env });
	record?.(result.run);
	if (result.failed) {
		const error = result.run?.data?.resultData?.error;
		throw new Error(
			`workflow ${workflowId} failed (exit ${result.code ?? result.signal}): ${error ? `${error.node?.name ?? ''}: ${error.message} ${error.description ?? ''}` : ''}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-2000)}`,
		);
	}
	return result.run;
}

/** Stops n8n and the server and removes the user folder (kept with SITE_E2E_KEEP set). */
async function stopStack({ n8n, server, userFolder } = {}) {
	if (n8n) await n8n.stop();
	if (server) await server.close();
	if (userFolder && !process.env.SITE_E2E_KEEP)
		fs.rmSync(userFolder, { recursive: true, force: true });
}

module.exports = {
	FAST_POLLS,
	progressLog,
	startReferenceServer,
	addTenant,
	prepareN8nFolder,
	writeWorkflowFiles,
	workflowNode,
	credentialRef,
	importFixtures,
	workflowJson,
	chainLinks,
	startN8nIn,
	deliveryReport,
	ownerCookie,
	executeOk,
	stopStack,
	importSiteCredentials,
};
