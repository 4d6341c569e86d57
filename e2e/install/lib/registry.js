'use strict';
/**
 * A local npm registry for the install test: verdaccio on 127.0.0.1 (a free port), storage in a
 * temporary folder, no uplink (only what the test publishes exists in it: npm fails on anything
 * else, e.g. the peer n8n-workflow), one user created through npm's adduser API for publishing.
 * `npm` runs with its own userconfig and cache, so the machine's npm settings play no part.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { freePort, httpGet, runCapture, sleep } = require('../../../scripts/lib/runtime');

function configYaml(storage) {
	// No `uplinks`: nothing is fetched from npmjs.org. Anyone may read; only logged-in users publish.
	return [
		`storage: ${JSON.stringify(storage)}`,
		'auth:',
		'  htpasswd:',
		`    file: ${JSON.stringify(path.join(storage, 'htpasswd'))}`,
		'    max_users: 1',
		'packages:',
		"  '**':",
		'    access: $all',
		'    publish: $authenticated',
		'    unpublish: $authenticated',
		'log: { type: stdout, format: pretty, level: warn }',
		'web: { enable: false }',
		'',
	].join('\n');
}

/** Starts verdaccio; resolves to {url, npm(args, options), stop()}. */
async function startRegistry({ verdaccioBin, workDir, log = () => {} }) {
	const storage = path.join(workDir, 'registry-storage');
	fs.mkdirSync(storage, { recursive: true });
	const configFile = path.join(workDir, 'verdaccio.yaml');
	fs.writeFileSync(configFile, configYaml(storage));
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const logFile = fs.openSync(path.join(workDir, 'verdaccio.log'), 'a');
	const child = spawn(
		process.execPath,
		[verdaccioBin, '--config', configFile, '--listen', `127.0.0.1:${port}`],
		{
			stdio: ['ignore', logFile, logFile],
		},
	);
	let exited = false;
	child.on('exit', () => (exited = true));
	const stop = async () => {
		if (!exited) {
			child.kill('SIGTERM');
			await new Promise((resolve) => child.once('exit', resolve));
		}
		fs.closeSync(logFile);
	};
	const deadline = Date.now() + 60000;
	while ((await httpGet(`${url}/-/ping`)) !== 200) {
		if (exited || Date.now() > deadline) {
			await stop();
			throw new Error(
				`verdaccio did not start: ${fs.readFileSync(path.join(workDir, 'verdaccio.log'), 'utf8').slice(-2000)}`,
			);
		}
		await sleep(250);
	}

	// A user, through the API `npm adduser` uses; its token goes into this registry's own npmrc.
	const password = crypto.randomBytes(18).toString('base64url');
	const response = await fetch(`${url}/-/user/org.couchdb.user:publisher`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ name: 'publisher', password, type: 'user', roles: [] }),
	});
	const { token } = await response.json();
	if (!response.ok || !token)
		throw new Error(`verdaccio: could not create the publishing user (HTTP ${response.status})`);
	const npmrc = path.join(workDir, 'npmrc');
	fs.writeFileSync(npmrc, `registry=${url}/\n//127.0.0.1:${port}/:_authToken=${token}\n`, {
		mode: 0o600,
	});
	const cache = path.join(workDir, 'npm-cache');
	log(`verdaccio on ${url} (storage ${storage}, no uplink)`);

	/** The environment that points npm at this registry only (own userconfig, cache; no audit, fund or update check). */
	const env = { ...process.env };
	for (const key of Object.keys(env)) if (/^npm_/i.test(key)) delete env[key];
	Object.assign(env, {
		npm_config_userconfig: npmrc,
		npm_config_registry: `${url}/`,
		npm_config_cache: cache,
		npm_config_audit: 'false',
		npm_config_fund: 'false',
		npm_config_update_notifier: 'false',
	});
	const npm = (args, { cwd, timeoutMs = 300000 } = {}) =>
		runCapture('npm', args, { cwd, env, timeoutMs });
	return { url, env, npm, stop };
}

module.exports = { startRegistry };
