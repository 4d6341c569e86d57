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
 * A temporary n8n user folder, its database already migrated (n8nCommands.seedUserFolder), with the
 * package staged, two free ports and n8n's environment for it
 * (`envOf`: n8nCommands.n8nEnv unless given): `{ userFolder, port, n8nUrl, env }`. These files drive
 * n8n through its REST API, webhooks and CLI, never its editor: n8n serves no editor
 * (N8N_DISABLE_UI), which spares each start writing the editor's files (about a third of its CPU),
 * unless `editor` (the stacks kept at n8n's defaults).
 */
async function prepareN8nFolder(prefix, { envOf = n8nCommands.n8nEnv, editor = false } = {}) {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const port = await processes.freePort();
	const env = envOf({ userFolder, port, brokerPort: await processes.freePort() });
	if (!editor) env.N8N_DISABLE_UI = 'true';
	await n8nCommands.seedUserFolder(userFolder, env);
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
 * Puts the credentials (each `{ id, name, type, data }`) and then the workflows (createWorkflows)
 * into the n8n of a folder from prepareN8nFolder, leaving it running. The credentials are saved
 * through n8n's REST API, as the editor saves them: n8n gives each an ID of its own, which the
 * workflows are given instead of the fixture's (credentialIdOf).
 */
async function importFixtures(site, { credentials, workflows }) {
	await saveCredentials(site, credentials);
	await createWorkflows(site, workflows);
}

/**
 * The credentials of importFixtures, through n8n's REST API (createCredentials); with `cli` (a stack
 * that runs its workflows with `n8n execute`, which n8n running beside would stop) through
 * `n8n import:credentials`. n8n 1.x takes its workflows from `n8n import:workflow` before it starts
 * (createWorkflows): until n8n runs, its credentials wait in `site.pendingCredentials`, saved once
 * n8n answers (siteRest), and the imported workflows are then given their IDs.
 */
async function saveCredentials(site, credentials, { cli = false } = {}) {
	if (cli) await stack.importCredentials(site.env, site.userFolder, credentials);
	else if (runtime.RUNTIME.restKeepsWorkflowIds || isRunning(site.n8n))
		await createCredentials(site, credentials);
	else (site.pendingCredentials ??= []).push(...credentials);
}

/**
 * Saves credentials through the REST API of a stack's n8n (started here unless it runs), as the
 * editor's credential dialog does, and notes the ID n8n gave each (credentialIdOf).
 */
async function createCredentials(site, credentials) {
	const rest = await siteRest(site);
	site.credentialIds ??= new Map();
	for (const { id, name, type, data } of credentials) {
		const created = await rest.call('POST', '/credentials', { name, type, data });
		site.credentialIds.set(id, created.id);
	}
}

/** The ID n8n keeps the credential under that a fixture names `id` (createCredentials). */
const credentialIdOf = (site, id) => site.credentialIds?.get(id) ?? id;

/**
 * Edits a credential as the editor does: reads it with its data (secrets come back redacted), changes
 * `changes`, and saves it with `PATCH /rest/credentials/:id` (n8n keeps the redacted secrets).
 * `id` is the fixture's (credentialIdOf).
 */
async function editCredential(site, id, changes) {
	const n8nId = credentialIdOf(site, id);
	const current = await site.rest.call('GET', `/credentials/${n8nId}?includeData=true`);
	await site.rest.call('PATCH', `/credentials/${n8nId}`, {
		id: n8nId,
		name: current.name,
		type: current.type,
		data: { ...current.data, ...changes },
	});
}

/** A workflow whose nodes name the credentials by the IDs n8n gave them (credentialIdOf). */
function withCredentialIds(site, workflow) {
	if (!site.credentialIds?.size) return workflow;
	const nodes = workflow.nodes.map((node) =>
		node.credentials
			? {
					...node,
					credentials: Object.fromEntries(
						Object.entries(node.credentials).map(([type, reference]) => [
							type,
							{ ...reference, id: credentialIdOf(site, reference.id) },
						]),
					),
				}
			: node,
	);
	return { ...workflow, nodes };
}

/**
 * A logged-in REST client (scripts/lib/rest.js) of a stack's n8n, started here unless it runs:
 * `site.rest`, made once. The owner is e-mailed at `owner@<name>.example.com`.
 */
async function siteRest(site, name = 'e2e') {
	await startN8nIn(site);
	site.rest ??= await n8nRest.restClient(site.n8nUrl, newOwner(name));
	const pending = site.pendingCredentials ?? [];
	site.pendingCredentials = [];
	if (pending.length) await createCredentials(site, pending);
	return site.rest;
}

/**
 * Creates workflows in a stack's n8n, keeping their IDs: through the REST API of its n8n (started
 * here unless it runs), as the editor's import does, where n8n keeps a given ID (2.x); else
 * (n8n 1.x gives a new workflow an ID of its own) with `n8n import:workflow` before its n8n starts.
 * `active: true` in a workflow publishes it once n8n runs. One n8n process then serves the file,
 * where each CLI command boots n8n anew.
 */
async function createWorkflows(site, workflows) {
	if (!runtime.RUNTIME.restKeepsWorkflowIds) {
		if (isRunning(site.n8n))
			throw new Error("n8n 1.x keeps a workflow's ID only on import: create it before n8n starts");
		await stack.importWorkflows(
			site.env,
			site.userFolder,
			writeWorkflowFiles(
				path.join(site.userFolder, `workflows-${crypto.randomBytes(4).toString('hex')}`),
				// `active` is the REST API's to set (below), after n8n starts.
				workflows.map((workflow) => ({ ...workflow, active: false })),
			),
		);
	}
	const rest = await siteRest(site);
	for (const { active, ...workflow } of workflows) {
		if (runtime.RUNTIME.restKeepsWorkflowIds)
			await rest.call('POST', '/workflows', withCredentialIds(site, workflow));
		else if (workflow.nodes.some((node) => node.credentials))
			// As the editor saves a workflow whose credential was picked anew.
			await rest.call('PATCH', `/workflows/${workflow.id}?forceSave=true`, {
				nodes: withCredentialIds(site, workflow).nodes,
			});
		if (active) await rest.activateWorkflow(workflow.id);
	}
}

/** Publishes a workflow in a stack's running n8n, as the editor does (its triggers start now). */
async function publish(site, workflowId) {
	return await (await siteRest(site)).activateWorkflow(workflowId);
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

/** Whether an n8n from startN8nIn is running. */
const isRunning = (n8n) => Boolean(n8n) && n8n.process.exitCode === null && !n8n.process.signalCode;

/**
 * `n8n start` on a folder from prepareN8nFolder, its log in the folder's n8n.log (its lines also to
 * `site.echo` when set): `site.n8n`, also
 * resolved once its REST API answers. While the one started earlier runs, that one (a file's
 * helpers share one n8n); once it has stopped, a new one.
 */
async function startN8nIn(site) {
	if (!isRunning(site.n8n)) {
		site.n8n = await n8nCommands.startN8n({
			env: site.env,
			port: site.port,
			logFile: path.join(site.userFolder, 'n8n.log'),
			echo: site.echo,
		});
	}
	// n8n 1.x answers its readiness check a while before /rest exists (longer on a busy machine).
	// (/rest/login: /rest/settings is the editor's, absent without it.)
	await stack.waitFor(
		"n8n's REST API",
		async () => (await fetch(`${site.n8nUrl}/rest/login`)).status !== 404,
		{ timeoutMs: 120_000, everyMs: 500 },
	);
	return site.n8n;
}

/** A new owner account for an n8n: owner@<name>.example.com with a fresh password. */
function newOwner(name) {
	return {
		email: `owner@${name}.example.com`,
		firstName: 'E2E',
		lastName: 'Owner',
		password: `E2e-${crypto.randomBytes(12).toString('base64url')}`,
	};
}

/**
 * Sets up n8n's owner (owner@<name>.example.com, a fresh password) unless this file set one up
 * already, and logs in: resolves to the cookie for /rest calls. n8n 1.x answers its readiness check
 * a moment before its REST routes exist (404 until then): the set-up is asked until it answers.
 */
async function ownerCookie(n8nUrl, name) {
	const owner = await stack.waitFor(
		"n8n's owner set-up",
		async () => await n8nRest.ownerOf(n8nUrl, newOwner(name)),
		{ timeoutMs: 60000, everyMs: 500 },
	);
	return await n8nRest.login(n8nUrl, owner);
}

/**
 * The stack's credentials of the given `types` for a file's own server and tenant token (no AI
 * endpoint: one that answers nothing), for importFixtures.
 */
function siteCredentialsOf(server, tenantToken, types) {
	return stack
		.credentialsFor({
			serverUrl: server.url,
			adminToken: server.adminToken,
			tenantToken,
			aiUrl: 'http://127.0.0.1:9',
		})
		.filter((credential) => types.includes(credential.type));
}

/**
 * Puts the credentials the examples name into a stack's n8n (`site`: { server, demoToken, env,
 * userFolder }), as importFixtures does: the site's (admin, demo tenant, managed) and, from `extra`,
 * the AI endpoint (aiUrl, aiApiKey) and the MCP token (mcpToken). `options`: saveCredentials's.
 */
async function importSiteCredentials(site, extra = {}, options = {}) {
	await saveCredentials(
		site,
		stack.credentialsFor({
			serverUrl: site.server.url,
			adminToken: site.server.adminToken,
			tenantToken: site.demoToken,
			...extra,
		}),
		options,
	);
}

/**
 * Runs workflows in a stack's running n8n (started here unless `site.n8n` is), as the editor's
 * Execute workflow does: `POST /rest/workflows/:id/run` from the workflow's Manual Trigger, then its
 * execution as n8n stored it. One n8n process serves all of a file's runs, where `n8n execute` boots
 * n8n anew for each. `execute(id)` resolves like n8nCommands.executeWorkflow: `{ run, failed }`,
 * `run` with `data` (the run data: resultData…) and `status`. `name`: the owner's e-mail domain.
 */
async function restRunner(site, name) {
	const rest = await siteRest(site, name);
	const execute = async (workflowId) => {
		const workflow = await rest.call('GET', `/workflows/${workflowId}`);
		const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
		if (!trigger) throw new Error(`workflow ${workflowId} has no Manual Trigger to run from`);
		const execution = await rest.waitForExecution(await rest.runWorkflow(workflowId, trigger.name));
		const run = { data: execution.run.data, status: execution.status };
		return {
			run,
			failed: execution.status !== 'success' || Boolean(run.data?.resultData?.error),
			stdout: '',
			stderr: '',
		};
	};
	return { rest, execute };
}

/**
 * A workflow run that must succeed: through `runner` (restRunner) when given, else `n8n execute
 * --id` with `env`. Resolves to the run; a failed execution throws with the node and message of its
 * error and the end of n8n's output. `log`: told which workflow runs; `record`: given every run,
 * failed or not.
 */
async function executeOk(workflowId, { env, runner, log, record }) {
	log(runner ? `run ${workflowId} in n8n` : `n8n execute --id=${workflowId}`);
	const result = runner
		? await runner.execute(workflowId)
		: await n8nCommands.executeWorkflow(workflowId, { env });
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
	siteCredentialsOf,
	FAST_POLLS,
	progressLog,
	startReferenceServer,
	addTenant,
	prepareN8nFolder,
	writeWorkflowFiles,
	workflowNode,
	credentialRef,
	importFixtures,
	saveCredentials,
	createCredentials,
	credentialIdOf,
	editCredential,
	withCredentialIds,
	workflowJson,
	chainLinks,
	startN8nIn,
	siteRest,
	createWorkflows,
	publish,
	deliveryReport,
	ownerCookie,
	executeOk,
	restRunner,
	stopStack,
	importSiteCredentials,
};
