#!/usr/bin/env node
'use strict';
/**
 * Installs the n8n runtime (n8n 2.x and Node 24, from tools/n8n-runtime/package.json and its lockfile) into
 * tools/n8n-runtime/node_modules, showing progress. Does nothing when it is installed and up to date;
 * `--force` reinstalls. `npm start` and `npm run test:n8n` call the same code on first use.
 *
 *   node scripts/install-runtime.js [--force]
 */
const { ensureRuntime } = require('./lib/install');
const { RUNTIME_MODULES } = require('./lib/runtime');

const started = Date.now();
const say = (message) =>
	console.log(`[n8n runtime +${Math.round((Date.now() - started) / 1000)}s] ${message}`);

ensureRuntime({ log: say, force: process.argv.includes('--force') })
	.then((marker) => say(`ready: n8n ${marker.n8n} on Node ${marker.node} (${RUNTIME_MODULES})`))
	.catch((error) => {
		console.error(`n8n runtime install failed: ${error.message}`);
		process.exit(1);
	});
