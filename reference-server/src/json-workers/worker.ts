/**
 * A JSON worker's program: what the main thread would otherwise do to a large JSON body in long
 * synchronous steps (plugins/json-body.ts). It checks the bytes (UTF-8, nesting), parses them as
 * Fastify's parser does (secure-json-parse refusing `__proto__`), hashes the body for the
 * Idempotency-Key and serialises the fields the route stores as text.
 */
import { isUtf8 } from 'node:buffer';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { parse } from 'secure-json-parse';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../lib/json-depth';
import { requestHash, stableJson } from '../lib/request-hash';
import type { JsonOutcome, JsonTask } from './protocol';
import { isForbiddenKey } from './protocol';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The same options as the in-thread parser (plugins/json-body.ts). */
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'ignore' } as const;

export function handle(task: JsonTask): JsonOutcome {
	const bytes = Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength);
	if (!isUtf8(bytes)) return { refused: 'utf8' };
	if (nestsDeeperThan(bytes, MAX_JSON_DEPTH)) return { refused: 'depth' };
	let body: unknown;
	try {
		body = parse(bytes.toString('utf8'), undefined, PARSE_OPTIONS);
	} catch (error) {
		return { refused: isForbiddenKey(error) ? 'proto' : 'json' };
	}
	const hash = requestHash(task.method, task.url, stableJson(body));
	const texts: Record<string, string> = {};
	if (isPlainObject(body)) {
		for (const field of task.textFields) {
			const value = body[field];
			// Anything else stays as it is, for the route's schema to refuse with its own words.
			if (!Array.isArray(value) || !value.every(isPlainObject)) continue;
			texts[field] = JSON.stringify(value);
			body[field] = [];
		}
	}
	return { body, texts, hash };
}

// On Linux a priority set with pid 0 is the calling thread's alone: on a busy machine the event loop
// gets the CPU before the parse of a large body does (elsewhere it would be the whole process's).
if (process.platform === 'linux' && parentPort) setPriority(0, 10);

parentPort?.on('message', (task: JsonTask) => parentPort?.postMessage(handle(task)));
