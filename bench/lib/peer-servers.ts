/**
 * The mock servers a user would otherwise start for end-to-end tests, from their command lines, each
 * in a child of its own (cli-child.ts). Both run with their request logging off, as the reference
 * server runs without a logger: the comparison is of serving, not of printing.
 */
import { writeFileSync } from 'fs';
import { join } from 'path';

import { tempDir, trackedChild, type Site } from './context';
import type { Child } from './children';

export interface Peer {
	label: string;
	url: string;
	child: Child;
}

/** From bench/dist/bench/lib to the bench's own node_modules/.bin (bench/package.json). */
const bin = (name: string) => join(__dirname, '..', '..', '..', 'node_modules', '.bin', name);

async function startCli(label: string, script: string, args: string[]): Promise<Peer> {
	const child = trackedChild('cli-child', { BENCH_CLI: JSON.stringify({ script, args }) });
	const ready = await child.next<{ type: string; url: string }>('ready', 90_000);
	return { label, url: ready.url, child };
}

/**
 * `prism mock` on the reference server's own /openapi.json: static answers generated from the
 * document, after Prism has checked each request against it (a missing bearer token is a 401).
 * `--errors false` (Prism's default, stated): a request that breaks the document still gets an answer.
 */
export async function startPrism(site: Site): Promise<Peer> {
	const response = await fetch(`${site.url}/openapi.json`);
	if (!response.ok) throw new Error(`GET /openapi.json: HTTP ${response.status}`);
	const file = join(tempDir('bench-prism-'), 'openapi.json');
	writeFileSync(file, await response.text());
	return startCli('Prism mock', bin('prism'), [
		'mock',
		file,
		'-p',
		'{port}',
		'-h',
		'127.0.0.1',
		'--errors',
		'false',
		'-v',
		'silent',
	]);
}

/**
 * json-server 0.17 on a db file holding `pages`, with routes giving it the reference server's paths:
 * POST /api/page creates in the collection, GET /api/pages answers its first 20 (the reference
 * server's default page size). json-server writes the whole db file after every write, as it does
 * for a user.
 */
export async function startJsonServer(pages: object[]): Promise<Peer> {
	const dir = tempDir('bench-json-server-');
	const db = join(dir, 'db.json');
	const routes = join(dir, 'routes.json');
	writeFileSync(db, JSON.stringify({ pages }));
	writeFileSync(
		routes,
		JSON.stringify({ '/api/page': '/pages', '/api/pages': '/pages?_page=1&_limit=20' }),
	);
	return startCli('json-server', bin('json-server'), [
		db,
		'--routes',
		routes,
		'--port',
		'{port}',
		'--host',
		'127.0.0.1',
		'--quiet',
	]);
}
