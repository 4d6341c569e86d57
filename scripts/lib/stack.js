'use strict';
/**
 * What `npm start` and the n8n end-to-end tests share about the stack: the credentials the examples
 * use (fixed IDs, referenced by the example workflows), importing them and the workflows into n8n,
 * and small clients for the reference server.
 */
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const { ROOT, RUNTIME } = require('./runtime');
const { n8nCliOk, n8nFolder } = require('./n8n');
const { restClient } = require('./rest');
// The one polling helper (process.js), here too for the tests that wait on the stack.
const { waitFor } = require('./process');

const EXAMPLES_DIR = path.join(ROOT, 'examples');

/** The example workflows, by role; IDs are fixed so the CLI can execute and publish them. */
const WORKFLOWS = {
	onboarding: { id: 'siteOnboarding01', file: 'tenant-onboarding.json' },
	contactForm: { id: 'siteContactForm1', file: 'contact-form-notification.json' },
	aiChain: { id: 'siteAiContent001', file: 'ai-content-chain.json' },
	aiAgent: { id: 'siteAiAgent00001', file: 'ai-agent-site-editor.json' },
	pagePublished: { id: 'sitePagePublish1', file: 'page-published-notification.json' },
	mcp: { id: 'siteMcpTools0001', file: 'mcp-site-tools.json' },
	everySite: { id: 'siteEverySite001', file: 'every-site-update.json' },
	fleetRollout: { id: 'siteFleetRollout', file: 'fleet-rollout.json' },
};

/** The examples `npm start` publishes (activates) once it has created them (queue mode: QUEUE_PUBLISHED). */
const PUBLISHED = [WORKFLOWS.contactForm, WORKFLOWS.mcp];
const QUEUE_PUBLISHED = [WORKFLOWS.contactForm];

/** The name an example workflow has in n8n (its file's `name`). */
function exampleName(workflow) {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, workflow.file), 'utf8')).name;
}

/** The credential IDs and names the example workflows refer to. */
const CREDENTIALS = {
	admin: {
		id: 'siteAdminCred001',
		name: 'Site Management Admin (reference server)',
		type: 'siteAdminApi',
	},
	tenant: { id: 'siteTenantCred01', name: 'Site Management Tenant (demo)', type: 'siteTenantApi' },
	managed: {
		id: 'siteManagedCred1',
		name: 'Site Management Managed Tenant (acme)',
		type: 'siteManagedTenantApi',
	},
	// The same admin token with Tenant Scope "Any Tenant": the Tenant nodes name the site per item
	// (their Tenant parameter), so this one credential reaches every site.
	managedEverySite: {
		id: 'siteManagedAll01',
		name: 'Site Management Managed Tenant (every site)',
		type: 'siteManagedTenantApi',
	},
	ai: { id: 'siteOpenAiCred01', name: 'OpenAI-compatible endpoint', type: 'openAiApi' },
	// n8n's own Bearer Auth credential: the token MCP clients send to the MCP example's trigger.
	mcp: { id: 'siteMcpBearer001', name: 'MCP clients (bearer token)', type: 'httpBearerAuth' },
	// n8n's SMTP credential, for n8n's Send Email review of an agent's tool calls (the examples review
	// in the site; docs/ai.md keeps the mail route): it points at a mail sink on loopback
	// (scripts/lib/mail-sink.js) unless a real server is given.
	mail: { id: 'siteMailSink0001', name: 'Mail for approvals (SMTP)', type: 'smtp' },
};

/** Where `npm start` runs its mail sink (the port the imported SMTP credential names by default). */
const MAIL_PORT = 4025;

/**
 * The tenant the Managed Tenant (acme) credential names; the onboarding example creates or updates it
 * with its other sites, and the every-site example changes it.
 */
const ONBOARDING_TENANT = 'acme';

/**
 * An OpenAI credential's Base URL for an endpoint given as a base URL (`…/v1`) or, as SITE_AI_URL
 * used to be, as its chat-completions URL.
 */
function aiBaseUrl(url) {
	return String(url)
		.replace(/\/+$/, '')
		.replace(/\/chat\/completions$/, '');
}

/**
 * The credentials, in n8n's import format (data as a plain object: `n8n import:credentials`
 * encrypts it with the instance's key). Tokens appear here and nowhere in a workflow. The AI one is
 * n8n's OpenAI credential with its Base URL on the endpoint (the stand-in, or a real one); the
 * tenant one comes with `tenantToken`, the MCP clients' bearer token with `mcpToken`.
 */
function credentialsFor({
	serverUrl,
	adminToken,
	tenantToken,
	managedTenantId = ONBOARDING_TENANT,
	aiUrl,
	aiApiKey = 'not-needed-for-the-stand-in',
	mcpToken,
	mailPort = MAIL_PORT,
}) {
	const entry = (key, data) => ({ ...CREDENTIALS[key], data });
	const list = [
		entry('admin', { baseUrl: serverUrl, token: adminToken }),
		entry('managed', {
			adminBaseUrl: serverUrl,
			adminToken,
			tenantId: managedTenantId,
			baseUrl: serverUrl,
			lifetime: 900,
			accessToken: '',
		}),
		entry('managedEverySite', {
			adminBaseUrl: serverUrl,
			adminToken,
			tenantScope: 'any',
			tenantId: '',
			baseUrl: serverUrl,
			lifetime: 900,
			accessToken: '',
		}),
		entry('ai', {
			apiKey: aiApiKey,
			organizationId: '',
			url: aiBaseUrl(aiUrl ?? 'https://api.openai.com/v1'),
			header: false,
		}),
	];
	if (tenantToken) list.splice(1, 0, entry('tenant', { baseUrl: serverUrl, token: tenantToken }));
	if (mcpToken) list.push(entry('mcp', { token: mcpToken }));
	list.push(
		entry('mail', {
			host: '127.0.0.1',
			port: mailPort,
			secure: false,
			disableStartTls: true,
			user: '',
			password: '',
		}),
	);
	return list;
}

/**
 * `n8n import:credentials` from a temporary file (mode 0600) inside n8n's own folder, removed
 * right after, whatever happens.
 */
async function importCredentials(env, userFolder, credentials) {
	const file = path.join(
		n8nFolder(userFolder),
		`import-credentials-${crypto.randomBytes(6).toString('hex')}.json`,
	);
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
	try {
		return await n8nCliOk(['import:credentials', `--input=${file}`], { env });
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/**
 * An example with `aiModel` written into its OpenAI Chat Model nodes (the examples name a fixed model,
 * as a user's n8n needs: n8n 2.x blocks `$env` in nodes by default).
 */
function withAiModel(workflow, aiModel) {
	for (const node of workflow.nodes) {
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi')
			node.parameters.model.value = aiModel;
	}
	return workflow;
}

/**
 * `n8n import:workflow --separate` of the given workflow files (default: every example). `aiModel`:
 * the chat model the AI examples use instead of the one they name.
 */
async function importWorkflows(env, userFolder, files, { aiModel } = {}) {
	const list =
		files ?? Object.values(WORKFLOWS).map((workflow) => path.join(EXAMPLES_DIR, workflow.file));
	const dir = path.join(
		n8nFolder(userFolder),
		`import-workflows-${crypto.randomBytes(6).toString('hex')}`,
	);
	fs.mkdirSync(dir, { recursive: true });
	try {
		for (const file of list) {
			const target = path.join(dir, path.basename(file));
			if (!aiModel) fs.copyFileSync(file, target);
			else
				fs.writeFileSync(
					target,
					JSON.stringify(withAiModel(JSON.parse(fs.readFileSync(file, 'utf8')), aiModel)),
				);
		}
		return await n8nCliOk(['import:workflow', '--separate', `--input=${dir}`], { env });
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Creates workflows from their files through n8n's REST API (`rest`: a client from rest.js,
 * logged in), keeping their IDs, as the editor's import does. One that exists already is left as it
 * is (a user's edits stay). `aiModel`: as for importWorkflows.
 */
async function createWorkflows(rest, files, { aiModel } = {}) {
	for (const file of files) {
		// `active` is not the editor's to send: publishing is its own call.
		const read = JSON.parse(fs.readFileSync(file, 'utf8'));
		const workflow = aiModel ? withAiModel(read, aiModel) : read;
		delete workflow.active;
		try {
			await rest.call('POST', '/workflows', workflow);
		} catch (error) {
			if (!/exists already/.test(error.message)) throw error;
		}
	}
}

/**
 * The fleet rollout's Data table (`fleet-rollout`, the columns its Rollout state node creates), made
 * as the editor makes one, so that the example opens without issue badges before its first run (its
 * Data table nodes list the table's columns); the node then reuses it. One made before stays.
 */
async function createFleetTable(rest, log) {
	const project = await rest.call('GET', '/projects/personal');
	try {
		await rest.call('POST', `/projects/${project.id}/data-tables`, {
			name: 'fleet-rollout',
			columns: ['rollout', 'tenant', 'status', 'detail'].map((name) => ({ name, type: 'string' })),
		});
		log('created the fleet rollout\'s Data table "fleet-rollout"');
	} catch (error) {
		if (!/exists|already/i.test(error.message)) throw error;
	}
}

/**
 * The example workflows not created yet, through n8n's REST API as the editor creates them (the n8n
 * process is already up: no CLI run), and the contact-form and MCP ones published (the
 * contact-form trigger registers with the site). Resolves with the IDs of the examples n8n now has (for `state.workflowsImported`).
 */
async function createExamples(n8nUrl, state, { log, aiModel }) {
	// The example IDs created so far; `true` was recorded before the AI examples moved to n8n's AI
	// nodes, so of those only the onboarding and contact-form ones are current.
	const imported = Array.isArray(state.workflowsImported)
		? state.workflowsImported
		: state.workflowsImported === true
			? [WORKFLOWS.onboarding.id, WORKFLOWS.contactForm.id]
			: [];
	const examples = Object.values(WORKFLOWS).filter((workflow) => !imported.includes(workflow.id));
	const all = Object.values(WORKFLOWS).map((workflow) => workflow.id);
	if (examples.length === 0) return all;
	log(
		`creating the example workflows in n8n: ${examples.map((workflow) => workflow.file).join(', ')}`,
	);
	const rest = await restClient(n8nUrl, state.owner);
	await createWorkflows(
		rest,
		examples.map((workflow) => path.join(EXAMPLES_DIR, workflow.file)),
		{ aiModel },
	);
	if (examples.includes(WORKFLOWS.fleetRollout)) await createFleetTable(rest, log);
	for (const active of PUBLISHED) {
		if (!examples.includes(active)) continue;
		log(`publishing ${active.file}`);
		await rest.activateWorkflow(active.id);
	}
	return all;
}

/** `n8n publish:workflow --id=…` (1.x: update:workflow --active=true): active from the next `n8n start` on. */
async function publishWorkflow(env, id) {
	return await n8nCliOk(RUNTIME.publish(id), { env });
}

/** A small JSON client for the reference server; never throws on a status. */
function siteClient(baseUrl, token) {
	return async (method, urlPath, body) => {
		const response = await fetch(`${baseUrl}${urlPath}`, {
			method,
			headers: {
				...(token ? { authorization: `Bearer ${token}` } : {}),
				...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			},
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await response.text();
		let data;
		try {
			data = text ? JSON.parse(text) : undefined;
		} catch {
			data = text;
		}
		return { status: response.status, data };
	};
}

/**
 * Creates the tenant unless it exists (409 is fine). `npm start` and the end-to-end tests prepare the
 * acme tenant this way, so the Managed Tenant credential that names it works from the first look.
 * Resolves with whether it was created.
 */
async function ensureTenant(serverUrl, adminToken, body) {
	const created = await siteClient(serverUrl, adminToken)('POST', '/api/tenant', body);
	if (created.status !== 200 && created.status !== 409) {
		throw new Error(
			`could not create the tenant "${body.id}": HTTP ${created.status} ${JSON.stringify(created.data)}`,
		);
	}
	return created.status === 200;
}

/**
 * The editor's credential Test button: `POST /rest/credentials/test` as the logged-in owner (`cookie`)
 * with `credential` ({id, name, type, data}). Resolves to n8n's verdict `{status, message}`.
 */
async function testCredentialInN8n(n8nUrl, cookie, credential) {
	const response = await fetch(`${n8nUrl}/rest/credentials/test`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', cookie, 'browser-id': 'site-management-start' },
		body: JSON.stringify({ credentials: credential }),
	});
	if (response.status !== 200)
		throw new Error(`credential test: HTTP ${response.status} ${await response.text()}`);
	const body = await response.json();
	return body.data ?? body;
}

/** n8n's SQLite database in a user folder, opened read-only (tests read what n8n stored). */
function openN8nDatabase(userFolder) {
	const Database = require('better-sqlite3');
	return new Database(path.join(n8nFolder(userFolder), 'database.sqlite'), {
		readonly: true,
		fileMustExist: true,
	});
}

/** How many executions of a workflow n8n stored. */
function executionCount(userFolder, workflowId) {
	const db = openN8nDatabase(userFolder);
	try {
		return db
			.prepare('SELECT COUNT(*) AS n FROM execution_entity WHERE workflowId = ?')
			.get(workflowId).n;
	} finally {
		db.close();
	}
}

module.exports = {
	EXAMPLES_DIR,
	PUBLISHED,
	QUEUE_PUBLISHED,
	exampleName,
	openN8nDatabase,
	executionCount,
	WORKFLOWS,
	CREDENTIALS,
	ONBOARDING_TENANT,
	ensureTenant,
	aiBaseUrl,
	credentialsFor,
	MAIL_PORT,
	importCredentials,
	importWorkflows,
	createExamples,
	publishWorkflow,
	siteClient,
	testCredentialInN8n,
	waitFor,
};
