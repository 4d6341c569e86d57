#!/usr/bin/env node
'use strict';
/**
 * `npm start`: the whole stack on this machine, on 127.0.0.1 only.
 *
 *  1. builds the package (npm run build) unless the last build is of the current sources
 *  2. installs the n8n runtime into tools/n8n-runtime/node_modules if it is missing (first time: minutes)
 *  3. starts the reference server (SQLite under .data/reference-server) on :4010 and, at the same
 *     time, an OpenAI-compatible stand-in on :4011 for the AI examples, unless SITE_AI_URL is set
 *  4. creates the demo tenant "demo", its token and three pages (kept and reused on the next start),
 *     and the empty tenant "acme"
 *  5. first start, or when a token, the AI endpoint or the list of credentials changed: imports the
 *     credentials into n8n (one n8n CLI run, `n8n import:credentials`: their IDs are fixed, which
 *     n8n's REST API cannot do; tokens live only there; the OpenAI credential's Base URL is the AI
 *     endpoint)
 *  6. starts n8n on :5678 with this package loaded as a community package, sets up its owner account
 *  7. first start: creates the example workflows through n8n's REST API, as the editor does, and
 *     publishes (activates) the contact-form one; later starts create only examples added since
 *  8. prints the URLs and the owner login; Ctrl-C stops n8n, then the reference server
 *
 * Everything lives in .data/ (git-ignored): stack.json (admin token, demo token, owner login; mode
 * 0600), reference-server/ (the site database), n8n/ (N8N_USER_FOLDER), *.log.
 * Environment: N8N_PORT (5678), SITE_SERVER_PORT (4010), SITE_AI_PORT (4011), SITE_MAIL_PORT (4025),
 * SITE_AI_URL, SITE_AI_KEY
 * (a real OpenAI-compatible endpoint, its base URL such as https://api.openai.com/v1 or its
 * chat-completions URL, instead of the stand-in), SITE_AI_MODEL (the model name written into the AI
 * examples when they are imported; they name gpt-4o-mini), SITE_START_SKIP_BUILD=1,
 * SITE_START_DATA (a folder instead of .data/).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('./lib/runtime');
const { ensureRuntime } = require('./lib/install');
const { n8nEnv, n8nFolder, stagePackage, startN8n } = require('./lib/n8n');
const { portInUse, waitFor } = require('./lib/process');
const { login, setupOwner } = require('./lib/rest');
const stack = require('./lib/stack');
const { startAiStandIn } = require('./lib/ai-stand-in');
const { startMailSink } = require('./lib/mail-sink');
const { startQueueMode } = require('./lib/queue/start');
const { ensureBuilt } = require('./lib/build');
const { banner, shownPath } = require('./lib/banner');
const { DEMO_TENANT, ensureDemoSite, startReferenceServer } = require('./lib/demo-site');

const ROOT = runtime.ROOT;
// SITE_START_DATA: another folder for everything (the browser test starts a stack of its own there).
const DATA = process.env.SITE_START_DATA
	? path.resolve(process.env.SITE_START_DATA)
	: path.join(ROOT, '.data');
const STATE_FILE = path.join(DATA, 'stack.json');
const USER_FOLDER = path.join(DATA, 'n8n');
const shown = (file) => shownPath(ROOT, file);
const SERVER_DATA = path.join(DATA, 'reference-server');
const N8N_LOG = path.join(DATA, 'n8n.log');
const SERVER_LOG = path.join(DATA, 'reference-server.log');

const { options: flags } = require('./lib/start-options').readStartOptions(process.argv.slice(2));

// A flag wins over the environment variable of the same setting.
const N8N_PORT = Number(flags['n8n-port'] ?? process.env.N8N_PORT ?? 5678);
const BROKER_PORT = Number(
	flags['broker-port'] ?? process.env.N8N_RUNNERS_BROKER_PORT ?? N8N_PORT + 1,
);
const SERVER_PORT = Number(flags['server-port'] ?? process.env.SITE_SERVER_PORT ?? 4010);
const AI_PORT = Number(flags['ai-port'] ?? process.env.SITE_AI_PORT ?? 4011);
const MAIL_PORT = Number(flags['mail-port'] ?? process.env.SITE_MAIL_PORT ?? stack.MAIL_PORT);
const QUEUE_PROXY_PORT = Number(
	flags['queue-proxy-port'] ?? process.env.SITE_QUEUE_PROXY_PORT ?? 5690,
);
// --queue: n8n in queue mode (Redis, PostgreSQL, main + 2 workers + 2 webhook processors), see lib/queue/start.js.
const QUEUE = flags.queue === true;

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

/** One n8n process (regular mode) with the package, the credentials and the example workflows; resolves with its URL. */
async function startOneN8n({ serverUrl, state, aiUrl, aiKeyHash, children, shutdown }) {
	stagePackage(USER_FOLDER);
	const env = n8nEnv({
		userFolder: USER_FOLDER,
		port: N8N_PORT,
		brokerPort: BROKER_PORT,
	});

	const credentials = stack.credentialsFor({
		serverUrl,
		adminToken: state.adminToken,
		tenantToken: state.demoToken,
		aiUrl,
		...(process.env.SITE_AI_KEY ? { aiApiKey: process.env.SITE_AI_KEY } : {}),
		mcpToken: state.mcpToken,
		mailPort: MAIL_PORT,
	});
	const credentialIds = credentials.map((credential) => credential.id);
	// A credential added to the stack since the last import (the every-site one) imports them all again.
	const importedIds = state.credentialIds ?? [];
	if (!state.credentialsImported || credentialIds.some((id) => !importedIds.includes(id))) {
		say('importing the credentials into n8n (one n8n CLI run: import:credentials)');
		await stack.importCredentials(env, USER_FOLDER, credentials);
		Object.assign(state, {
			credentialsImported: true,
			credentialIds,
			aiUrl,
			aiKeyHash,
			mailPort: MAIL_PORT,
		});
		saveState(state);
	}
	say(`starting n8n on 127.0.0.1:${N8N_PORT} (log in ${path.relative(ROOT, N8N_LOG)})`);
	const n8n = await startN8n({ env, port: N8N_PORT, logFile: N8N_LOG, detached: true });
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
	if (process.env.SITE_START_SKIP_BUILD !== '1') await ensureBuilt({ log: say });
	await ensureRuntime({ log: say });

	const ports = [
		[N8N_PORT, 'n8n (N8N_PORT)'],
		[BROKER_PORT, 'n8n task broker (N8N_RUNNERS_BROKER_PORT)'],
		[SERVER_PORT, 'reference server (SITE_SERVER_PORT)'],
		...(process.env.SITE_AI_URL ? [] : [[AI_PORT, 'AI stand-in (SITE_AI_PORT)']]),
		[MAIL_PORT, "mail sink for n8n's review e-mails (SITE_MAIL_PORT)"],
		...(QUEUE ? [[QUEUE_PROXY_PORT, 'webhook proxy of queue mode (SITE_QUEUE_PROXY_PORT)']] : []),
	];
	for (const [port, what] of ports) {
		if (await portInUse(port))
			throw new Error(`port ${port} for the ${what} is in use (is another npm start running?)`);
	}

	const state = loadState();
	const n8nDatabase = path.join(n8nFolder(USER_FOLDER), 'database.sqlite');
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
		// The AI stand-in starts while the server does (it needs nothing from it).
		const aiStandIn = process.env.SITE_AI_URL ? undefined : startAiStandIn({ port: AI_PORT });
		// Its failure is reported where it is awaited, below.
		aiStandIn?.catch(() => {});
		const server = await startReferenceServer({
			adminToken: state.adminToken,
			dataDir: SERVER_DATA,
			port: SERVER_PORT,
			logFile: SERVER_LOG,
		});
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
		if (aiStandIn) {
			const ai = await aiStandIn;
			children.push({ name: 'the AI stand-in', stop: ai.close });
			aiUrl = ai.baseUrl;
		}
		aiUrl = stack.aiBaseUrl(aiUrl);
		// The agent example's reviews of tool calls go by email: a sink keeps them and prints their links.
		const mailSink = await startMailSink({
			port: MAIL_PORT,
			onMessage: (message) =>
				say(
					`review email to ${message.to.join(', ')}: ${message.subject}\n  ${message.links.join('\n  ')}`,
				),
		});
		children.push({ name: 'the mail sink', stop: mailSink.close });
		// The OpenAI credential holds the endpoint and its key: import it again when either changed.
		const aiKeyHash = crypto
			.createHash('sha256')
			.update(process.env.SITE_AI_KEY ?? '')
			.digest('hex');
		// The SMTP credential names the mail sink's port: import again when it moved.
		if (state.aiUrl !== aiUrl || state.aiKeyHash !== aiKeyHash || state.mailPort !== MAIL_PORT)
			delete state.credentialsImported;

		let n8nUrl;
		let queueLines = [];
		if (QUEUE) {
			({ url: n8nUrl, lines: queueLines } = await startQueueMode({
				serverUrl: server.url,
				state,
				aiUrl,
				mainPort: N8N_PORT,
				proxyPort: QUEUE_PROXY_PORT,
				mailPort: MAIL_PORT,
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

		const owner = await setupOwner(n8nUrl, state.owner);
		let ownerNote = owner.created ? 'set up now' : 'set up earlier';
		let loggedIn = true;
		try {
			await login(n8nUrl, state.owner);
		} catch {
			loggedIn = false;
			ownerNote = `an owner exists whose password is not the one in ${shown(STATE_FILE)}; reset it with the n8n CLI (user-management:reset) or remove ${shown(USER_FOLDER)}`;
		}
		if (!QUEUE && loggedIn) {
			state.workflowsImported = await stack.createExamples(n8nUrl, state, {
				log: say,
				aiModel: process.env.SITE_AI_MODEL,
			});
			saveState(state);
		}

		const demoClient = stack.siteClient(server.url, state.demoToken);
		let webhook;
		try {
			webhook = await waitFor(
				'the contact-form trigger to register',
				async () =>
					(await demoClient('GET', '/api/settings')).data?.settings?.contact_form_webhook_url,
				{ timeoutMs: 60000, everyMs: 500 },
			);
		} catch {
			webhook = undefined;
		}

		say('ready');
		console.log(
			banner({
				n8nUrl,
				owner: state.owner,
				ownerNote,
				queueLines,
				serverUrl: server.url,
				webhook,
				aiUrl,
				realAi: Boolean(process.env.SITE_AI_URL),
				queue: QUEUE,
				stateFile: shown(STATE_FILE),
				mailPort: MAIL_PORT,
			}),
		);
	} catch (error) {
		console.error(`\nnpm start failed: ${error.message}`);
		await shutdown(1);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
