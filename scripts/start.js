#!/usr/bin/env node
'use strict';
/**
 * `npm start`: the whole stack on this machine, on 127.0.0.1 only.
 *
 *  1. builds the package (npm run build)
 *  2. installs the n8n runtime into tools/n8n-runtime/node_modules if it is missing (first time: minutes)
 *  3. starts the reference server (SQLite under .data/reference-server) on :4010
 *  4. creates the demo tenant "demo", its token and three pages (kept and reused on the next start)
 *  5. starts an OpenAI-compatible stand-in on :4011 for the AI examples, unless SITE_AI_URL is set
 *  6. first start only: imports the credentials (tokens live only there; the OpenAI credential's Base
 *     URL is the AI endpoint) and the example workflows into n8n, publishes (activates) the
 *     contact-form workflow; later starts import only examples added since, and the credentials
 *     again when a token or the AI endpoint changed
 *  7. starts n8n on :5678 with this package loaded as a community package, sets up its owner account
 *  8. prints the URLs and the owner login; Ctrl-C stops n8n, then the reference server
 *
 * Everything lives in .data/ (git-ignored): stack.json (admin token, demo token, owner login; mode
 * 0600), reference-server/ (the site database), n8n/ (N8N_USER_FOLDER), *.log.
 * Environment: N8N_PORT (5678), SITE_SERVER_PORT (4010), SITE_AI_PORT (4011), SITE_AI_URL, SITE_AI_KEY
 * (a real OpenAI-compatible endpoint, its base URL such as https://api.openai.com/v1 or its
 * chat-completions URL, instead of the stand-in), SITE_AI_MODEL (the model name written into the AI
 * examples when they are imported; they name gpt-4o-mini), SITE_START_SKIP_BUILD=1,
 * SITE_START_DATA (a folder instead of .data/).
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('./lib/runtime');
const stack = require('./lib/stack');
const { startAiStandIn } = require('./lib/ai-stand-in');
const { startQueueMode } = require('./lib/queue/start');

const ROOT = runtime.ROOT;
// SITE_START_DATA: another folder for everything (the browser test starts a stack of its own there).
const DATA = process.env.SITE_START_DATA
	? path.resolve(process.env.SITE_START_DATA)
	: path.join(ROOT, '.data');
const STATE_FILE = path.join(DATA, 'stack.json');
const USER_FOLDER = path.join(DATA, 'n8n');
const SERVER_DATA = path.join(DATA, 'reference-server');
const N8N_LOG = path.join(DATA, 'n8n.log');
const SERVER_LOG = path.join(DATA, 'reference-server.log');

const N8N_PORT = Number(process.env.N8N_PORT || 5678);
const BROKER_PORT = Number(process.env.N8N_RUNNERS_BROKER_PORT || N8N_PORT + 1);
const SERVER_PORT = Number(process.env.SITE_SERVER_PORT || 4010);
const AI_PORT = Number(process.env.SITE_AI_PORT || 4011);
const DEMO_TENANT = 'demo';
// --queue: n8n in queue mode (Redis, PostgreSQL, main + 2 workers + 2 webhook processors), see lib/queue/start.js.
const QUEUE = process.argv.slice(2).includes('--queue');
const DEMO_PAGES = [
	{
		name: 'Home',
		url: '/',
		locale: 'en',
		templates: [
			{
				type: 'hero',
				title: 'Welcome to the demo site',
				text: 'Built with the Site Management nodes.',
			},
		],
	},
	{
		name: 'About us',
		url: '/about-us',
		locale: 'en',
		templates: [
			{ type: 'heading', text: 'About us' },
			{ type: 'text', body: 'We are a small team that builds websites.' },
		],
	},
	{
		name: 'Contact',
		url: '/contact',
		locale: 'en',
		templates: [
			{ type: 'heading', text: 'Contact' },
			{ type: 'contact-form', fields: ['name', 'email', 'message'] },
		],
	},
];

const started = Date.now();
const say = (message) =>
	console.log(`[start +${Math.round((Date.now() - started) / 1000)}s] ${message}`);

function loadState() {
	try {
		return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8'));
	} catch {
		return {};
	}
}

function saveState(state) {
	fs.mkdirSync(DATA, { recursive: true });
	fs.writeFileSync(STATE_FILE, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
	fs.chmodSync(STATE_FILE, 0o600);
}

function newPassword() {
	// n8n asks for 8 to 64 characters with a digit and an upper-case letter.
	return `Site-${crypto.randomBytes(12).toString('base64url')}-7Q`;
}

function run(command, args, options = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
		child.on('error', reject);
		child.on('exit', (code, signal) =>
			code === 0
				? resolve()
				: reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`)),
		);
	});
}

/** The reference server as a child process in its own process group; resolves once /health answers. */
async function startReferenceServer(adminToken) {
	fs.mkdirSync(SERVER_DATA, { recursive: true });
	const out = fs.openSync(SERVER_LOG, 'a');
	const child = spawn(
		process.execPath,
		[
			path.join(ROOT, 'reference-server', 'bin', 'site-reference-server.js'),
			'--data-dir',
			SERVER_DATA,
			'--enable-variables',
			// n8n runs beside the server on loopback: its webhooks may reach it (refused by default).
			'--webhook-allow',
			'loopback',
			'--host',
			'127.0.0.1',
			'--port',
			String(SERVER_PORT),
		],
		{
			cwd: ROOT,
			env: { ...process.env, ADMIN_TOKEN: adminToken },
			stdio: ['ignore', out, out],
			detached: true,
		},
	);
	fs.closeSync(out);
	const { exited, exitPromise, stop: stopChild } = runtime.watchExit(child);
	const url = `http://127.0.0.1:${SERVER_PORT}`;
	const deadline = Date.now() + 60000;
	while (Date.now() < deadline) {
		const exit = exited();
		if (exit)
			throw new Error(
				`the reference server exited (${exit.signal ?? `exit ${exit.code}`}); see ${path.relative(ROOT, SERVER_LOG)}`,
			);
		if ((await runtime.httpGet(`${url}/health`)) === 200) {
			const stop = async () => {
				await stopChild(15000);
			};
			return { url, child, stop, exitPromise };
		}
		await runtime.sleep(250);
	}
	child.kill('SIGKILL');
	throw new Error(
		`the reference server did not answer on ${url}/health within 60 s; see ${path.relative(ROOT, SERVER_LOG)}`,
	);
}

/** The demo tenant, a working token for it (reused when it still works) and its pages. */
async function ensureDemoSite(serverUrl, adminToken, state) {
	const admin = stack.siteClient(serverUrl, adminToken);
	const created = await stack.ensureTenant(serverUrl, adminToken, {
		id: DEMO_TENANT,
		fqdn: 'demo.example.com',
	});
	// The onboarding example's tenant, empty: its Managed Tenant credential works before the example runs.
	await stack.ensureTenant(serverUrl, adminToken, { id: stack.ONBOARDING_TENANT });
	let tokenChanged = false;
	if (
		!state.demoToken ||
		(await stack.siteClient(serverUrl, state.demoToken)('GET', '/api/pages?per_page=1')).status !==
			200
	) {
		const issued = await admin('POST', '/api/tenant/token', { id: DEMO_TENANT });
		if (issued.status !== 200)
			throw new Error(`could not issue the demo token: HTTP ${issued.status}`);
		state.demoToken = issued.data.token;
		tokenChanged = true;
	}
	const demo = stack.siteClient(serverUrl, state.demoToken);
	for (const page of DEMO_PAGES) {
		const exists = await demo('GET', `/api/pages?url=${encodeURIComponent(page.url)}`);
		if (exists.status === 200 && exists.data.data.length > 0) continue;
		const { templates, ...fields } = page;
		await demo('POST', '/api/page', { ...fields, draft: false });
		await demo('PUT', '/api/content', { url: page.url, templates });
	}
	return { created, tokenChanged };
}

/** One n8n process (regular mode) with the package, the credentials and the example workflows; resolves with its URL. */
async function startOneN8n({ serverUrl, state, aiUrl, aiKeyHash, children, shutdown }) {
	runtime.stagePackage(USER_FOLDER);
	const env = runtime.n8nEnv({
		userFolder: USER_FOLDER,
		port: N8N_PORT,
		brokerPort: BROKER_PORT,
	});

	if (!state.credentialsImported) {
		say('importing the credentials into n8n (n8n import:credentials)');
		await stack.importCredentials(
			env,
			USER_FOLDER,
			stack.credentialsFor({
				serverUrl,
				adminToken: state.adminToken,
				tenantToken: state.demoToken,
				aiUrl,
				...(process.env.SITE_AI_KEY ? { aiApiKey: process.env.SITE_AI_KEY } : {}),
				mcpToken: state.mcpToken,
			}),
		);
		Object.assign(state, { credentialsImported: true, aiUrl, aiKeyHash });
		saveState(state);
	}
	// The example IDs imported so far; `true` was recorded before the AI examples moved to n8n's AI
	// nodes, so of those only the onboarding and contact-form ones are current.
	const imported = Array.isArray(state.workflowsImported)
		? state.workflowsImported
		: state.workflowsImported === true
			? [stack.WORKFLOWS.onboarding.id, stack.WORKFLOWS.contactForm.id]
			: [];
	const examples = Object.values(stack.WORKFLOWS).filter(
		(workflow) => !imported.includes(workflow.id),
	);
	if (examples.length > 0) {
		say(
			`importing the example workflows (n8n import:workflow): ${examples.map((workflow) => workflow.file).join(', ')}`,
		);
		await stack.importWorkflows(
			env,
			USER_FOLDER,
			examples.map((workflow) => path.join(stack.EXAMPLES_DIR, workflow.file)),
			{ aiModel: process.env.SITE_AI_MODEL },
		);
		for (const active of [stack.WORKFLOWS.contactForm, stack.WORKFLOWS.mcp]) {
			if (!examples.includes(active)) continue;
			say(`publishing ${active.file}`);
			await stack.publishWorkflow(env, active.id);
		}
	}
	state.workflowsImported = Object.values(stack.WORKFLOWS).map((workflow) => workflow.id);
	saveState(state);

	say(`starting n8n on 127.0.0.1:${N8N_PORT} (log in ${path.relative(ROOT, N8N_LOG)})`);
	const n8n = await runtime.startN8n({ env, port: N8N_PORT, logFile: N8N_LOG, detached: true });
	children.push({ name: 'n8n', stop: n8n.stop, process: n8n.process });
	n8n.exitPromise.then(
		(exit) =>
			void shutdown(
				1,
				`n8n exited unexpectedly (${exit.signal ?? `exit ${exit.code}`}); see ${path.relative(ROOT, N8N_LOG)}`,
			),
	);
	return n8n.url;
}

async function main() {
	if (process.env.SITE_START_SKIP_BUILD !== '1') {
		say('building the package (npm run build)');
		await run('npm', ['run', 'build', '--silent']);
	}
	await runtime.ensureRuntime({ log: say });

	const ports = [
		[N8N_PORT, 'n8n (N8N_PORT)'],
		[BROKER_PORT, 'n8n task broker (N8N_RUNNERS_BROKER_PORT)'],
		[SERVER_PORT, 'reference server (SITE_SERVER_PORT)'],
		...(process.env.SITE_AI_URL ? [] : [[AI_PORT, 'AI stand-in (SITE_AI_PORT)']]),
	];
	for (const [port, what] of ports) {
		if (await runtime.portInUse(port))
			throw new Error(`port ${port} for the ${what} is in use (is another npm start running?)`);
	}

	const state = loadState();
	const n8nDatabase = path.join(runtime.n8nFolder(USER_FOLDER), 'database.sqlite');
	if (!fs.existsSync(n8nDatabase)) {
		// A fresh n8n folder: import and set up again.
		delete state.credentialsImported;
		delete state.workflowsImported;
	}
	state.adminToken ??= `sat_${crypto.randomBytes(32).toString('base64url')}`;
	// The bearer token MCP clients send to the MCP example (a new one: its credential is imported again).
	if (!state.mcpToken) {
		state.mcpToken = `mcp_${crypto.randomBytes(24).toString('base64url')}`;
		delete state.credentialsImported;
	}
	state.owner ??= {
		email: 'owner@example.com',
		firstName: 'Site',
		lastName: 'Owner',
		password: newPassword(),
	};
	saveState(state);

	const children = [];
	let shuttingDown = false;
	const shutdown = async (code, why) => {
		if (shuttingDown) return;
		shuttingDown = true;
		if (why) say(why);
		// n8n first (its trigger takes its webhook off the site while the server is still up), then the server.
		for (const child of [...children].reverse()) {
			try {
				say(`stopping ${child.name}`);
				await child.stop();
			} catch (error) {
				say(`${child.name}: ${error.message}`);
			}
		}
		say('stopped');
		process.exit(code);
	};
	let firstSigint = 0;
	process.on('SIGINT', () => {
		// A terminal's Ctrl-C reaches npm and this process, and npm passes it on: one press can
		// arrive twice. Only a second press (a moment later) kills.
		if (shuttingDown && Date.now() - firstSigint > 2000) {
			for (const child of children) child.process?.kill('SIGKILL');
			process.exit(130);
		}
		if (shuttingDown) return;
		firstSigint = Date.now();
		void shutdown(0, 'Ctrl-C: stopping (press Ctrl-C again to kill)');
	});
	process.on('SIGTERM', () => void shutdown(0, 'SIGTERM: stopping'));
	process.on('exit', () => {
		for (const child of children)
			if (child.process && child.process.exitCode === null) child.process.kill('SIGKILL');
	});

	try {
		say(
			`starting the reference server (data in ${path.relative(ROOT, SERVER_DATA)}, log in ${path.relative(ROOT, SERVER_LOG)})`,
		);
		const server = await startReferenceServer(state.adminToken);
		children.push({ name: 'the reference server', stop: server.stop, process: server.child });
		server.exitPromise.then(
			(exit) =>
				void shutdown(
					1,
					`the reference server exited unexpectedly (${exit.signal ?? `exit ${exit.code}`})`,
				),
		);

		const demo = await ensureDemoSite(server.url, state.adminToken, state);
		say(
			`demo tenant "${DEMO_TENANT}" ${demo.created ? 'created' : 'reused'}, token ${demo.tokenChanged ? 'issued' : 'reused'}`,
		);
		if (demo.tokenChanged) delete state.credentialsImported;
		saveState(state);

		let aiUrl = process.env.SITE_AI_URL;
		if (!aiUrl) {
			const ai = await startAiStandIn({ port: AI_PORT });
			children.push({ name: 'the AI stand-in', stop: ai.close });
			aiUrl = ai.baseUrl;
		}
		aiUrl = stack.aiBaseUrl(aiUrl);
		// The OpenAI credential holds the endpoint and its key: import it again when either changed.
		const aiKeyHash = crypto
			.createHash('sha256')
			.update(process.env.SITE_AI_KEY ?? '')
			.digest('hex');
		if (state.aiUrl !== aiUrl || state.aiKeyHash !== aiKeyHash) delete state.credentialsImported;

		let n8nUrl;
		let queueLines = [];
		if (QUEUE) {
			({ url: n8nUrl, lines: queueLines } = await startQueueMode({
				serverUrl: server.url,
				state,
				aiUrl,
				mainPort: N8N_PORT,
				children,
				say,
			}));
		} else {
			n8nUrl = await startOneN8n({
				serverUrl: server.url,
				state,
				aiUrl,
				aiKeyHash,
				children,
				shutdown,
			});
		}

		const owner = await runtime.setupOwner(n8nUrl, state.owner);
		let ownerNote = owner.created ? 'set up now' : 'set up earlier';
		try {
			await runtime.login(n8nUrl, state.owner);
		} catch {
			ownerNote =
				'an owner exists whose password is not the one in .data/stack.json; reset it with the n8n CLI (user-management:reset) or remove .data/n8n';
		}

		const demoClient = stack.siteClient(server.url, state.demoToken);
		let webhook;
		try {
			webhook = await stack.waitFor(
				'the contact-form trigger to register',
				async () =>
					(await demoClient('GET', '/api/settings')).data?.settings?.contact_form_webhook_url,
				{ timeoutMs: 60000, everyMs: 500 },
			);
		} catch {
			webhook = undefined;
		}

		const lines = [
			'',
			'Site Management stack is running (127.0.0.1 only):',
			'',
			`  n8n               ${n8nUrl}`,
			`    owner login     ${state.owner.email}  /  ${state.owner.password}   (${ownerNote})`,
			...queueLines,
			`  reference server  ${server.url}   (API document: ${server.url}/openapi.json)`,
			`    admin token     in .data/stack.json and in the n8n credential "${stack.CREDENTIALS.admin.name}"`,
			`  demo site         tenant "${DEMO_TENANT}", pages / /about-us /contact; its token is in the credential "${stack.CREDENTIALS.tenant.name}"`,
			`  contact form      POST ${server.url}/forms/${DEMO_TENANT}/contact  ->  ${webhook ?? '(the trigger has not registered yet; see the n8n log)'}`,
			`  AI endpoint       ${aiUrl}${process.env.SITE_AI_URL ? '' : '  (stand-in; set SITE_AI_URL and SITE_AI_KEY for a real one)'}`,
			`    in n8n          the OpenAI credential "${stack.CREDENTIALS.ai.name}" (Base URL above)`,
			...(QUEUE
				? []
				: [
						`  MCP server        ${n8nUrl}/mcp/site-tools   (streamable HTTP; bearer token: mcpToken in .data/stack.json)`,
					]),
			'',
			'  Workflows: "Site Management: tenant onboarding", "...: contact form to notification" (active),',
			'             "...: AI content chain", "...: AI site editor (agent)", "...: site tools for MCP',
			'             clients" (active). Try the contact form:',
			`    curl -X POST ${server.url}/forms/${DEMO_TENANT}/contact -H 'content-type: application/json' \\`,
			`      -d '{"name": "Ada", "email": "ada@example.com", "message": "Hello"}'`,
			'',
			'Press Ctrl-C to stop n8n and the reference server.',
		];
		console.log(lines.join('\n'));
	} catch (error) {
		console.error(`\nnpm start failed: ${error.message}`);
		await shutdown(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
