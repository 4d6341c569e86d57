'use strict';
/**
 * `npm start -- --queue`: the n8n part of `npm start` in queue mode. Redis and PostgreSQL start in a
 * temporary folder (removed on stop: each queue start is a fresh n8n), then main, two workers and two
 * webhook processors behind the round-robin proxy; the credentials and example workflows are imported
 * and the contact-form workflow published, so main registers the proxy's URL with the demo site.
 * Ports: main on `mainPort`, the proxy (the public webhook address) on `proxyPort` (npm start's
 * --n8n-port and --queue-proxy-port; scripts/start.js checks them free).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const stack = require('../stack');
const { startRedis, startPostgres } = require('./services');
const { startQueueN8n } = require('./n8n');

/**
 * Starts the queue-mode n8n for the running reference server. `children` is npm start's list of
 * things to stop (last added, first stopped). Resolves with the lines to print.
 */
async function startQueueMode({
	serverUrl,
	state,
	aiUrl,
	mainPort,
	proxyPort,
	mailPort,
	children,
	say,
}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-queue-start-'));
	children.push({
		name: 'the temporary folder',
		stop: async () => fs.rmSync(dir, { recursive: true, force: true }),
	});
	say(`queue mode: Redis and PostgreSQL in ${dir}`);
	const redis = await startRedis(dir);
	children.push({ name: 'Redis', stop: redis.stop });
	const postgres = await startPostgres(dir);
	children.push({ name: 'PostgreSQL', stop: postgres.stop });

	const n8n = await startQueueN8n({
		dir,
		redis,
		postgres,
		ports: { main: mainPort, proxy: proxyPort },
		// Its own process groups: a terminal's Ctrl-C reaches npm start only, which stops them in order.
		detached: true,
		extraEnv: {
			SITE_AI_URL: aiUrl,
		},
		log: say,
		before: async (env) => {
			say('importing the credentials and example workflows, publishing the contact-form one');
			await stack.importCredentials(
				env,
				env.N8N_USER_FOLDER,
				stack.credentialsFor({
					serverUrl,
					adminToken: state.adminToken,
					tenantToken: state.demoToken,
					aiUrl,
					...(process.env.SITE_AI_KEY ? { aiApiKey: process.env.SITE_AI_KEY } : {}),
					mcpToken: state.mcpToken,
					mailPort,
				}),
			);
			await stack.importWorkflows(env, env.N8N_USER_FOLDER, undefined, {
				aiModel: process.env.SITE_AI_MODEL,
			});
			for (const workflow of stack.QUEUE_PUBLISHED) await stack.publishWorkflow(env, workflow.id);
		},
	});
	children.push({ name: 'n8n (main, workers, webhook processors)', stop: n8n.stop });

	const processes = [
		`    main              ${n8n.mainUrl}   (editor, REST API, trigger activation; log ${n8n.main.logFile})`,
		...n8n.workers.map(
			(w) => `    ${w.name.padEnd(17)} health ${w.url}/healthz   (log ${w.logFile})`,
		),
		...n8n.webhooks.map((w) => `    ${w.name.padEnd(17)} ${w.url}   (log ${w.logFile})`),
		`    proxy             ${n8n.publicUrl}   (WEBHOOK_URL: /webhook/* round robin to the webhook processors, the rest to main)`,
		`    Redis             127.0.0.1:${redis.port}, PostgreSQL 127.0.0.1:${postgres.port} (database ${postgres.database}; removed on stop)`,
	];
	return { url: n8n.mainUrl, lines: ['  n8n in queue mode:', ...processes] };
}

module.exports = { startQueueMode };
