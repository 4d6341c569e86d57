/**
 * The baselines of the server rows: a bare node:http server that reads the request body and answers
 * fixed JSON: the very bytes the reference server answered to the same request (captured by the
 * parent), so both send the same amount. Responses come as JSON in BENCH_BARE_RESPONSES, keyed
 * "METHOD /path".
 *
 * With BENCH_BARE_DB=<file> it is the durable baseline: each POST's body is inserted into SQLite
 * (better-sqlite3, the reference server's journal mode and synchronous setting), one insert per
 * request, committed before the answer. Without it, it stores nothing.
 *
 * With BENCH_BARE_KEYED=1 as well, it is the durable baseline of a POST that carries an
 * Idempotency-Key: the answer is also stored under that key (a random key, as the Tenant node sends),
 * in the same transaction, so the request still commits once. These are the two records the reference
 * server keeps for such a POST (the page and the answer kept for replay), with nothing else around them.
 */
import Database from 'better-sqlite3';
import { createServer } from 'http';
import type { AddressInfo } from 'net';

import { DURABILITY_PRAGMAS } from '../reference-server/src/db/open';
import { failChild } from './lib/children';

interface FixedResponse {
	status: number;
	body: string;
}

/** SQLite's names for the values `PRAGMA synchronous` reads back. */
const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/**
 * One commit per call, durable when it returns: the body's insert, autocommitted, or with a key the
 * body and the answer in one transaction (a repeated key replaces its answer, as on the reference server).
 */
function openStore(file: string) {
	const db = new Database(file);
	for (const pragma of DURABILITY_PRAGMAS) db.pragma(pragma);
	db.exec('CREATE TABLE IF NOT EXISTS bodies (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
	db.exec('CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, body TEXT NOT NULL)');
	const insertBody = db.prepare('INSERT INTO bodies (body) VALUES (?)');
	const storeAnswer = db.prepare('INSERT OR REPLACE INTO answers (key, body) VALUES (?, ?)');
	const insertWithAnswer = db.transaction((body: string, key: string, answer: string) => {
		insertBody.run(body);
		storeAnswer.run(key, answer);
	});
	return {
		settings: {
			journalMode: String(db.pragma('journal_mode', { simple: true })),
			synchronous: SYNCHRONOUS[Number(db.pragma('synchronous', { simple: true }))] ?? 'unknown',
		},
		insert(body: string, kept?: { key: string; answer: string }) {
			if (kept) insertWithAnswer(body, kept.key, kept.answer);
			else insertBody.run(body);
		},
		close: () => db.close(),
	};
}

function main() {
	const fixed = JSON.parse(process.env.BENCH_BARE_RESPONSES ?? '{}') as Record<
		string,
		FixedResponse
	>;
	const prepared = new Map(
		Object.entries(fixed).map(([key, response]) => [
			key,
			{ status: response.status, body: Buffer.from(response.body) },
		]),
	);
	const keyed = process.env.BENCH_BARE_KEYED === '1';
	const store = process.env.BENCH_BARE_DB ? openStore(process.env.BENCH_BARE_DB) : undefined;
	const server = createServer((request, response) => {
		const path = (request.url ?? '/').split('?')[0];
		const route = `${request.method} ${path}`;
		const answer = prepared.get(route) ?? {
			status: 404,
			body: Buffer.from('{"error":"not_found"}'),
		};
		const chunks: Buffer[] = [];
		if (store && request.method === 'POST')
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
		else request.resume();
		request.on('end', () => {
			if (store && request.method === 'POST') {
				const key = keyed ? request.headers['idempotency-key'] : undefined;
				const kept = fixed[route];
				store.insert(
					Buffer.concat(chunks).toString('utf8'),
					typeof key === 'string' && kept ? { key, answer: kept.body } : undefined,
				);
			}
			response.writeHead(answer.status, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': answer.body.length,
			});
			response.end(answer.body);
		});
	});
	// Fastify's default is 72 s; keep connections open alike.
	server.keepAliveTimeout = 72_000;
	server.listen(0, '127.0.0.1', () => {
		const { port } = server.address() as AddressInfo;
		process.send?.({
			type: 'ready',
			url: `http://127.0.0.1:${port}`,
			pid: process.pid,
			store: store?.settings,
		});
	});
	const stop = () =>
		server.close(() => {
			store?.close();
			process.exit(0);
		});
	process.on('SIGTERM', stop);
	process.on('disconnect', stop);
}

try {
	main();
} catch (error) {
	failChild(error);
}
