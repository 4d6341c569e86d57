#!/usr/bin/env node
// Writes the reference server's OpenAPI document (GET /openapi.json) to a file, for the linters
// (npm run lint:openapi). Starts the built server (reference-server/dist) in-process on 127.0.0.1:0
// with a throw-away data directory, fetches the document, and stops the server.
// Usage: node scripts/dump-openapi.js <output file>
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

async function main() {
	const out = process.argv[2];
	if (!out) throw new Error('usage: node scripts/dump-openapi.js <output file>');
	const { startServer } = require('../reference-server/dist');
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-openapi-'));
	const server = await startServer({
		host: '127.0.0.1',
		port: 0,
		logger: false,
		dataDir,
		adminToken: 'openapi-dump',
	});
	try {
		const res = await fetch(`${server.url}/openapi.json`);
		if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
		const doc = await res.json();
		fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
		fs.writeFileSync(out, `${JSON.stringify(doc, null, 2)}\n`);
		console.log(`wrote ${out}`);
	} finally {
		await server.close();
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(error instanceof Error ? error.message : error);
	process.exit(1);
});
