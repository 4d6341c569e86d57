/**
 * Slow clients are cut off: headers that trickle in, a body that trickles in, a connection that sits
 * idle. Tested with small limits (headersTimeoutMs 300, requestTimeoutMs 900, idleTimeoutMs 1200);
 * the defaults are checked to be on (Fastify alone would leave the whole-request deadline off).
 *
 * What is asserted is the event (the server closed the connection, with its answer) and that it did
 * not come before the configured limit: a loaded machine only makes it later. The one upper bound is
 * GIVE_UP_MS, far above every limit: it only stops a test whose server never lets go.
 */
import * as net from 'node:net';

import { resolveConfig } from '../../src';
import { type Harness, createTenant, expectOk, type Tenant, useServer } from '../helpers';

let h: Harness;
let t: Tenant;

const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 900;
const IDLE_TIMEOUT_MS = 1200;
/**
 * Client (Date.now) and server (Node's monotonic clock) read different clocks; and the client starts
 * its clock before connecting, so it never sees the server's limit run short by more than this.
 */
const CLOCK_SLACK_MS = 50;
/**
 * A server that keeps a slow client past this has no working limit. 25x the longest limit here, and
 * well inside jest's 60 s per test: only a hung test waits this long.
 */
const GIVE_UP_MS = 30_000;

useServer((started) => (h = started), {
	headersTimeoutMs: HEADERS_TIMEOUT_MS,
	requestTimeoutMs: REQUEST_TIMEOUT_MS,
	idleTimeoutMs: IDLE_TIMEOUT_MS,
});

beforeAll(async () => {
	t = await createTenant(h);
});

interface SlowOutcome {
	/** Milliseconds from connect until the server closed the connection. */
	closedAfterMs: number;
	/** What the server sent before closing. */
	received: string;
	/** Bytes the client managed to send before being cut off. */
	sent: number;
}

/**
 * Connects, sends `head` at once, then one byte of `trickle` every `intervalMs` until the server
 * closes the connection (or `giveUpMs` passes, which fails the test).
 */
function slowClient(
	head: string,
	trickle: string,
	intervalMs: number,
	giveUpMs = GIVE_UP_MS,
): Promise<SlowOutcome> {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const socket = net.connect(h.server.port, '127.0.0.1');
		const chunks: Buffer[] = [];
		let sent = 0;
		let timer: NodeJS.Timeout | undefined;
		const giveUp = setTimeout(() => {
			socket.destroy();
			reject(new Error(`the server let a slow client hold the connection for ${giveUpMs} ms`));
		}, giveUpMs);
		socket.on('connect', () => {
			socket.write(head);
			sent += Buffer.byteLength(head);
			let i = 0;
			timer = setInterval(() => {
				if (socket.destroyed || !socket.writable) return;
				socket.write(trickle[i % trickle.length]);
				sent++;
				i++;
			}, intervalMs);
		});
		socket.on('data', (chunk: Buffer) => chunks.push(chunk));
		socket.on('error', () => undefined);
		socket.on('close', () => {
			clearInterval(timer);
			clearTimeout(giveUp);
			resolve({
				closedAfterMs: Date.now() - started,
				received: Buffer.concat(chunks).toString('utf8'),
				sent,
			});
		});
	});
}

function bodyOf(received: string): unknown {
	const text = received.split('\r\n\r\n').slice(1).join('\r\n\r\n');
	return JSON.parse(text);
}

const figures: string[] = [];

test('headers sent slowly: 408 request_timeout with the error body, connection closed', async () => {
	const outcome = await slowClient(
		`GET /api/pages HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n`,
		'X-Slow: aaaaaaaa\r\n'.repeat(50),
		50,
	);
	// The headers never end (no blank line): only the server's header deadline ends this, with its 408.
	expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
	expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - CLOCK_SLACK_MS);
	expect(bodyOf(outcome.received)).toEqual({
		error: 'request_timeout',
		message: expect.any(String),
	});
	expect(outcome.received).not.toContain(t.token);
	figures.push(`slow_headers_cut_after_ms=${outcome.closedAfterMs}`);
});

test('a body sent slowly: cut off at the request deadline, nothing stored', async () => {
	const body = JSON.stringify({
		name: 'Slow',
		url: '/slow-body',
		locale: 'en',
		meta_description: 'x'.repeat(400),
	});
	const head =
		`POST /api/page HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.token}\r\n` +
		`Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
	// A byte every 100 ms: the whole body would take about 48 s, longer than GIVE_UP_MS; the server
	// must cut it off at the request deadline.
	const outcome = await slowClient(head, body, 100);
	expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - CLOCK_SLACK_MS);
	// Far from the whole body arrived; the server did not wait for it.
	expect(outcome.sent).toBeLessThan(Buffer.byteLength(head) + Buffer.byteLength(body));
	if (outcome.received !== '') {
		expect(outcome.received).toMatch(/^HTTP\/1\.1 (408|400) /);
		expect(bodyOf(outcome.received)).toEqual(
			expect.objectContaining({ error: expect.any(String), message: expect.any(String) }),
		);
	}
	expect((await t.api.get('/api/pages', { params: { url: '/slow-body' } })).data.data).toEqual([]);
	figures.push(`slow_body_cut_after_ms=${outcome.closedAfterMs}`);
});

test('a connection that never sends a request is closed at the header deadline', async () => {
	const outcome = await slowClient('', '', 60_000);
	expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - CLOCK_SLACK_MS);
	figures.push(`silent_cut_after_ms=${outcome.closedAfterMs}`);
});

test('a kept-alive connection left idle after a request is closed after the idle timeout', async () => {
	const outcome = await slowClient(
		'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n',
		'',
		60_000,
	);
	expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
	// Not cut before the idle timeout (the answer came at once, so the idle time starts near 0).
	expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 200);
	figures.push(`idle_cut_after_ms=${outcome.closedAfterMs}`);
});

test('after the slow clients the server answers at once, and a prompt request is not affected', async () => {
	expect((await h.anon.get('/health')).status).toBe(200);
	expectOk(await t.api.post('/api/page', { name: 'Prompt', url: '/prompt', locale: 'en' }), 201);
	console.log(`[reliability] security: slow clients: ${figures.join(' ')}`);
});

test("the limits are on by default and reach Node's HTTP server", () => {
	const config = resolveConfig({});
	expect(config).toMatchObject({
		headersTimeoutMs: 20_000,
		requestTimeoutMs: 120_000,
		idleTimeoutMs: 72_000,
	});
	expect(h.server.app.server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
	expect(h.server.app.server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
	expect(() => resolveConfig({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).toThrow(
		/headersTimeoutMs/,
	);
	expect(() => resolveConfig({ idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
});
