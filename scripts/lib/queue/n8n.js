'use strict';
/**
 * n8n in queue mode: one main (editor, REST API, trigger activation), `workers` `n8n worker`
 * processes that run executions from the Redis queue, and `webhooks` `n8n webhook` processes that
 * take production webhook calls, all on one Postgres database with one encryption key. A round-robin
 * proxy (proxy.js) is the public address: WEBHOOK_URL points at it, so the site delivers to it and it
 * spreads the calls over the webhook processors (test URLs and everything else go to main).
 * Each process has its own user folder with the package staged in it, as separate machines would.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { n8nEnv, stagePackage, startN8n } = require('../n8n');
const { freePort } = require('../process');
const { startProxy } = require('./proxy');

/** The environment every process of the stack shares (queue, database, key, public URLs). */
function queueEnv({ redis, postgres, encryptionKey, proxyUrl, mainUrl }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		// n8n's default pool is 2 connections per process: a webhook processor taking 8 deliveries at
		// once then waits for a connection until it times out ("timeout exceeded when trying to connect").
		DB_POSTGRESDB_POOL_SIZE: '10',
		N8N_ENCRYPTION_KEY: encryptionKey,
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		// Binary data travels with the execution through the database: no shared folder needed.
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		WEBHOOK_URL: `${proxyUrl}/`,
		N8N_EDITOR_BASE_URL: `${mainUrl}/`,
	};
}

/**
 * Starts the n8n processes (Redis and Postgres must be running). `before(env)` runs between the
 * database being ready for the CLI and main starting: import credentials and workflows there.
 * Returns {main, workers, webhooks, proxy, env, restartMain(), killWorker(i), stop()}.
 */
async function startQueueN8n({
	dir,
	redis,
	postgres,
	workers = 2,
	webhooks = 2,
	workerConcurrency = 10,
	extraEnv = {},
	before,
	log = () => {},
	ports = {},
	detached = false,
}) {
	const encryptionKey = crypto.randomBytes(32).toString('hex');
	// ports.main, ports.proxy: fixed ports (npm start); free ones otherwise.
	const proxyPort = ports.proxy ?? (await freePort());
	const mainPort = ports.main ?? (await freePort());
	const mainUrl = `http://127.0.0.1:${mainPort}`;
	const shared = {
		...queueEnv({
			redis,
			postgres,
			encryptionKey,
			proxyUrl: `http://127.0.0.1:${proxyPort}`,
			mainUrl,
		}),
		...extraEnv,
	};

	const processEnv = async (name, { port, health } = {}) => {
		const userFolder = path.join(dir, `n8n-${name}`);
		fs.mkdirSync(userFolder, { recursive: true });
		stagePackage(userFolder);
		const ownPort = port ?? (await freePort());
		const env = n8nEnv({
			userFolder,
			port: ownPort,
			brokerPort: await freePort(),
			extra: {
				...shared,
				...(health
					? {
							QUEUE_HEALTH_CHECK_ACTIVE: 'true',
							QUEUE_HEALTH_CHECK_PORT: String(health),
							N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
						}
					: {}),
			},
		});
		return { name, env, port: ownPort, logFile: path.join(dir, `n8n-${name}.log`) };
	};

	const mainSpec = await processEnv('main', { port: mainPort });
	if (before) await before(mainSpec.env);

	const started = [];
	const launch = async (spec, command, args = []) => {
		const lines = [];
		const handle = await startN8n({
			env: spec.env,
			port: spec.port,
			logFile: spec.logFile,
			command,
			args,
			detached,
			echo: (line) => lines.push(line),
		});
		const entry = { ...spec, ...handle, command, args, lines };
		started.push(entry);
		return entry;
	};

	log('starting n8n main');
	const stack = { env: mainSpec.env, mainUrl, encryptionKey };
	stack.main = await launch(mainSpec, 'start');

	const workerSpecs = [];
	for (let i = 1; i <= workers; i += 1) {
		const health = await freePort();
		workerSpecs.push({ ...(await processEnv(`worker-${i}`, { health, port: health })), health });
	}
	const webhookSpecs = [];
	for (let i = 1; i <= webhooks; i += 1) webhookSpecs.push(await processEnv(`webhook-${i}`));
	log(`starting ${workers} workers and ${webhooks} webhook processors`);
	[stack.workers, stack.webhooks] = await Promise.all([
		Promise.all(
			workerSpecs.map((spec) => launch(spec, 'worker', [`--concurrency=${workerConcurrency}`])),
		),
		Promise.all(webhookSpecs.map((spec) => launch(spec, 'webhook'))),
	]);

	stack.proxy = await startProxy(
		{ main: mainUrl, webhooks: stack.webhooks.map((w) => w.url) },
		{ port: proxyPort },
	);
	stack.publicUrl = stack.proxy.url;

	/** Stops main (SIGTERM, as a deploy would) and starts it again on the same port and database. */
	stack.restartMain = async () => {
		await stack.main.stop();
		started.splice(started.indexOf(stack.main), 1);
		stack.main = await launch(mainSpec, 'start');
		return stack.main;
	};
	/** SIGKILL for one worker: no shutdown, its executions in flight are left as they are. */
	stack.killWorker = async (index) => {
		const worker = stack.workers[index];
		worker.process.kill('SIGKILL');
		await worker.exitPromise;
		started.splice(started.indexOf(worker), 1);
	};
	/** Starts a (killed) worker again. */
	stack.startWorker = async (index) => {
		const old = stack.workers[index];
		stack.workers[index] = await launch(workerSpecs[index], 'worker', old.args);
		return stack.workers[index];
	};
	/** Which worker (index) logged that it started each execution id. */
	stack.workerOfExecutions = () => {
		const owner = new Map();
		stack.workers.forEach((worker, index) => {
			for (const line of worker.lines) {
				const match = /Worker started execution (\d+)/.exec(line);
				if (match) owner.set(match[1], index);
			}
		});
		return owner;
	};
	stack.stop = async () => {
		if (stack.proxy) await stack.proxy.close();
		// Webhook processors and workers first, main last (it deregisters the active triggers).
		for (const entry of [...started].reverse()) await entry.stop().catch(() => undefined);
		started.length = 0;
	};
	return stack;
}

module.exports = { startQueueN8n };
