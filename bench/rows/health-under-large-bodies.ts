/**
 * Whether large bodies hold the server's event loop: eight ~10 MB `PUT /api/content` bodies sent at
 * once to a fresh server while `GET /health` is probed every ~10 ms; the probes' latency during the
 * uploads is what every other client of the server waits for meanwhile.
 */
import {
	call,
	createTenant,
	expectStatus,
	log,
	quick,
	rows,
	startSite,
	stopChild,
	type Site,
} from '../lib/context';
import { percentile, round } from '../lib/stats';

const BODIES = 8;
const BODY_MB = 10;
const PROBE_EVERY_MS = 10;
const GOAL_P99_MS = 200;
/** Rounds of the eight uploads, one after the other (--quick: one, the same sizes). */
const ROUNDS = quick ? 1 : 3;

/** A content update just under BODY_MB megabytes (the server's default body limit): many ordinary blocks, as a long page would have. */
function largeBody(url: string, seq: number) {
	const block = (i: number) => ({
		type: 'text',
		id: `${seq}-${i}`,
		heading: `Section ${i}`,
		body: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8),
		meta: { order: i, tags: ['a', 'b'], visible: true },
	});
	const templates: ReturnType<typeof block>[] = [];
	for (let size = 0; size < BODY_MB * 1024 * 1024 - 4096;) {
		const next = block(templates.length);
		size += JSON.stringify(next).length + 1;
		templates.push(next);
	}
	return JSON.stringify({ url, templates, banner: { title: url } });
}

async function put(site: Site, token: string, body: string) {
	const response = await fetch(`${site.url}/api/content`, {
		method: 'PUT',
		headers: {
			authorization: `Bearer ${token}`,
			'content-type': 'application/json',
			'idempotency-key': crypto.randomUUID(),
		},
		body,
	});
	// Read as bytes, not parsed: this process also times the probes, and must not stall on its side.
	const answer = Buffer.from(await response.arrayBuffer());
	if (response.status !== 200)
		throw new Error(
			`PUT /api/content: HTTP ${response.status}: ${answer.subarray(0, 500).toString()}`,
		);
}

/** Probes /health every PROBE_EVERY_MS until `until` settles; returns each probe's latency. */
async function probeHealth(site: Site, until: Promise<unknown>) {
	let done = false;
	void until.finally(() => (done = true)).catch(() => undefined);
	const latencies: number[] = [];
	while (!done) {
		const sent = performance.now();
		const response = await fetch(`${site.url}/health`);
		await response.arrayBuffer();
		const ms = performance.now() - sent;
		if (response.status !== 200) throw new Error(`GET /health: HTTP ${response.status}`);
		latencies.push(ms);
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, PROBE_EVERY_MS - ms)));
	}
	return latencies;
}

export async function healthUnderLargeBodiesRow() {
	const site = await startSite();
	try {
		const token = await createTenant(site, 'bench-large-bodies');
		const urls = Array.from({ length: BODIES }, (_, i) => `/large/${i}`);
		for (const url of urls)
			await expectStatus(
				201,
				call(site.url, token, 'POST', '/api/page', { name: `Large ${url}`, url, locale: 'en' }),
			);
		const bodies = urls.map((url, i) => largeBody(url, i));
		const mb = round(
			bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0) / BODIES / 1024 ** 2,
			1,
		);
		log(
			`Large bodies: ${BODIES} x ${mb} MB PUT /api/content at once, /health probed every ${PROBE_EVERY_MS} ms, ${ROUNDS} rounds`,
		);
		// Warm-up: a probe and one body, so the first round does not pay for compiling the code paths.
		await put(site, token, bodies[0]);
		const latencies: number[] = [];
		const uploadMs: number[] = [];
		for (let r = 0; r < ROUNDS; r++) {
			const started = performance.now();
			const uploads = Promise.all(bodies.map((body) => put(site, token, body))).then(() =>
				uploadMs.push(performance.now() - started),
			);
			latencies.push(...(await probeHealth(site, uploads)));
			await uploads;
		}
		const p99 = percentile(latencies, 99);
		rows.push({
			id: 'health-under-large-bodies',
			row: `GET /health every ${PROBE_EVERY_MS} ms while ${BODIES} x ${mb} MB PUT /api/content bodies arrive at once (${ROUNDS} rounds)`,
			measured: `/health p50 ${round(percentile(latencies, 50), 1)} ms, p99 ${round(p99, 1)} ms, max ${round(Math.max(...latencies), 1)} ms`,
			baseline: `the ${BODIES} uploads took ${uploadMs.map((ms) => round(ms / 1000, 2)).join(' / ')} s`,
			ratio: round(p99, 1),
			goal: `p99 < ${GOAL_P99_MS} ms`,
			pass: p99 < GOAL_P99_MS,
			figures: {
				bodies: BODIES,
				bodyMb: mb,
				probes: latencies.length,
				p50Ms: round(percentile(latencies, 50), 1),
				p99Ms: round(p99, 1),
				maxMs: round(Math.max(...latencies), 1),
				uploadSeconds: uploadMs.map((ms) => round(ms / 1000, 2)).join(' / '),
			},
		});
	} finally {
		await stopChild(site.child);
	}
}
