'use strict';
/**
 * A stack as a user of the package has it: a reference server with the demo site, and an n8n user
 * folder whose environment holds n8n's defaults for everything that changes what a workflow may do
 * (only where n8n listens, that it sends nothing out, and the n8n 1.x runtime's expression engine are
 * set). Shared by the test files that import the examples as they are.
 */
const fs = require('node:fs');
const path = require('node:path');

const runtime = require('../../../scripts/lib/runtime');
const n8nCommands = require('../../../scripts/lib/n8n');
const stack = require('../../../scripts/lib/stack');
const { addTenant, prepareN8nFolder, startReferenceServer } = require('./stack');

const DEMO_TENANT = 'demo';
const ABOUT_US = {
	url: '/about-us',
	templates: [
		{ type: 'heading', text: 'About us' },
		{ type: 'text', body: 'We are a small team.' },
	],
};

/**
 * The settings of n8nCommands.n8nEnv that a stock n8n has too: where it listens and keeps its data, what
 * it must not send out from a test, the log level, and the runtime's own needs (RUNTIME.env).
 */
const PLUMBING = new Set([
	'N8N_USER_FOLDER',
	'N8N_PORT',
	'N8N_LISTEN_ADDRESS',
	'N8N_HOST',
	'N8N_PROTOCOL',
	'WEBHOOK_URL',
	'N8N_EDITOR_BASE_URL',
	'N8N_RUNNERS_BROKER_LISTEN_ADDRESS',
	'N8N_RUNNERS_BROKER_PORT',
	'N8N_DIAGNOSTICS_ENABLED',
	'N8N_VERSION_NOTIFICATIONS_ENABLED',
	'N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED',
	'N8N_TEMPLATES_ENABLED',
	'N8N_LICENSE_AUTO_RENEW_ENABLED',
	'N8N_LOG_LEVEL',
	...Object.keys(runtime.RUNTIME.env),
]);

/** n8nCommands.n8nEnv without any n8n setting that is not plumbing: n8n's defaults for the rest. */
function stockEnv(options) {
	const env = n8nCommands.n8nEnv(options);
	for (const key of Object.keys(env)) {
		if (/^(N8N_|DB_|EXECUTIONS_|QUEUE_|NODES_|GENERIC_TIMEZONE$)/.test(key) && !PLUMBING.has(key))
			delete env[key];
	}
	return env;
}

/**
 * The reference server (in memory, ephemeral port) with the demo tenant, its token and its about page
 * with content; an n8n user folder with the package staged and a stock environment.
 */
async function startSiteAndFolder(prefix) {
	const server = await startReferenceServer({ enableVariables: true });
	const admin = stack.siteClient(server.url, server.adminToken);
	const { token: demoToken, client: demo } = await addTenant(server, DEMO_TENANT);
	await demo('POST', '/api/page', {
		name: 'About us',
		url: '/about-us',
		locale: 'en',
		draft: false,
	});
	await demo('PUT', '/api/content', ABOUT_US);

	return {
		server,
		admin,
		demo,
		demoToken,
		...(await prepareN8nFolder(prefix, { envOf: stockEnv, editor: true })),
	};
}

/** The example workflows in examples/, read from the folder: [{file, workflow}]. */
function exampleFiles() {
	return fs
		.readdirSync(stack.EXAMPLES_DIR)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => ({
			file: path.join(stack.EXAMPLES_DIR, name),
			workflow: JSON.parse(fs.readFileSync(path.join(stack.EXAMPLES_DIR, name), 'utf8')),
		}));
}

module.exports = {
	ABOUT_US,
	DEMO_TENANT,
	startSiteAndFolder,
	exampleFiles,
	stockEnv,
};
