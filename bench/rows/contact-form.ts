/**
 * Contact-form submissions delivered to a local webhook receiver: the latency of one submission on
 * an idle server, and the throughput of many.
 */
import { call, createTenant, expectStatus, log, rows, SIZES, type Site } from '../lib/context';
import { percentile, pool, round } from '../lib/stats';
import { startReceiver, type WebhookReceiver } from '../lib/webhook-receiver';

const SUBMIT_CONCURRENCY = 8;
const IDLE_SUBMISSIONS = 50;
const IDLE_GOAL_MS = 20;

/** A tenant whose contact form delivers to `receiver`. */
async function formTenant(site: Site, id: string, receiver: WebhookReceiver) {
	const token = await createTenant(site, id);
	await expectStatus(
		200,
		call(site.url, token, 'POST', '/api/settings', {
			contact_form_webhook_url: receiver.url,
			contact_form_webhook_headers: { 'X-Bench-Secret': 'bench' },
		}),
	);
}

async function submit(site: Site, tenant: string, seq: number) {
	const response = await fetch(`${site.url}/forms/${tenant}/contact`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			seq,
			name: `Sender ${seq}`,
			email: `sender${seq}@example.com`,
			message: 'Hello from the benchmark.',
		}),
	});
	await response.arrayBuffer();
	if (response.status !== 202) throw new Error(`contact form: HTTP ${response.status}`);
}

/** One submission at a time, each delivered before the next is sent: what a visitor's form waits for on a quiet site. */
async function idleLatencyRow(site: Site) {
	const receiver = await startReceiver();
	try {
		await formTenant(site, 'bench-forms-idle', receiver);
		log(`Contact form: ${IDLE_SUBMISSIONS} submissions one at a time on an idle server`);
		const latencies: number[] = [];
		const accepted: number[] = [];
		for (let seq = 0; seq < IDLE_SUBMISSIONS; seq++) {
			// A random pause first: the server settles, and submissions do not fall in step with a timer of its own.
			await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
			const sent = performance.now();
			await submit(site, 'bench-forms-idle', seq);
			accepted.push(performance.now() - sent);
			await receiver.waitFor(seq + 1, 30_000);
			latencies.push(receiver.receivedAt.get(seq)! - sent);
		}
		const p50 = percentile(latencies, 50);
		rows.push({
			id: 'delivery-idle-latency',
			row: `Contact-form delivery on an idle server, ${IDLE_SUBMISSIONS} submissions one at a time: submission POST to webhook receipt`,
			measured: `p50 ${round(p50, 1)} ms, p99 ${round(percentile(latencies, 99), 1)} ms`,
			baseline: `the submission's own 202: p50 ${round(percentile(accepted, 50), 1)} ms`,
			ratio: round(p50, 1),
			goal: `p50 < ${IDLE_GOAL_MS} ms`,
			pass: p50 < IDLE_GOAL_MS,
			figures: {
				submissions: IDLE_SUBMISSIONS,
				p50Ms: round(p50, 1),
				p99Ms: round(percentile(latencies, 99), 1),
				maxMs: round(Math.max(...latencies), 1),
				acceptedP50Ms: round(percentile(accepted, 50), 1),
				duplicates: receiver.duplicates(),
			},
		});
	} finally {
		receiver.close();
	}
}

/** SIZES.submissions submissions, SUBMIT_CONCURRENCY at a time (figures only). */
async function throughputRow(site: Site) {
	const n = SIZES.submissions;
	const sentAt = new Map<number, number>();
	const receiver = await startReceiver();
	try {
		await formTenant(site, 'bench-forms', receiver);
		log(
			`Contact form: ${n} submissions, ${SUBMIT_CONCURRENCY} at a time, delivered to a local receiver`,
		);
		const started = performance.now();
		await pool(n, SUBMIT_CONCURRENCY, async (seq) => {
			sentAt.set(seq, performance.now());
			await submit(site, 'bench-forms', seq);
		});
		const submitted = performance.now();
		await receiver.waitFor(n, 120_000);
		const finished = Math.max(...receiver.receivedAt.values());
		const latencies = [...receiver.receivedAt].map(([seq, at]) => at - sentAt.get(seq)!);
		const perSecond = (n / (finished - started)) * 1000;
		rows.push({
			id: 'contact-form-delivery',
			row: `Contact-form delivery, ${n} submissions to a local receiver`,
			measured: `${round(perSecond, 0)} submissions/s delivered`,
			baseline: `submission to receipt p50 ${round(percentile(latencies, 50), 1)} ms, p99 ${round(percentile(latencies, 99), 1)} ms`,
			ratio: null,
			goal: 'figures only',
			pass: null,
			figures: {
				submissions: n,
				deliveredPerSecond: round(perSecond, 0),
				acceptedPerSecond: round((n / (submitted - started)) * 1000, 0),
				p50Ms: round(percentile(latencies, 50), 1),
				p99Ms: round(percentile(latencies, 99), 1),
				maxMs: round(Math.max(...latencies), 1),
				duplicates: receiver.duplicates(),
			},
		});
	} finally {
		receiver.close();
	}
}

export async function contactFormRow(site: Site) {
	// The idle row first, while nothing of the throughput row is still in flight.
	await idleLatencyRow(site);
	await throughputRow(site);
}
