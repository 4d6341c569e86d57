/** Contact-form submissions delivered to a local receiver: throughput and latency. */
import { once } from 'events';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';

import { call, createTenant, expectStatus, log, rows, SIZES, type Site } from '../lib/context';
import { percentile, pool, round } from '../lib/stats';

const SUBMIT_CONCURRENCY = 8;

export async function contactFormRow(site: Site) {
	const n = SIZES.submissions;
	const sentAt = new Map<number, number>();
	const receivedAt = new Map<number, number>();
	let duplicates = 0;
	let allReceived!: () => void;
	const everything = new Promise<void>((resolve) => (allReceived = resolve));

	// The local receiver: records when each submission arrives and answers 200 at once.
	const receiver: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const now = performance.now();
			const seq = Number((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { fields: { seq: number } }).fields.seq);
			if (receivedAt.has(seq)) duplicates++;
			else receivedAt.set(seq, now);
			response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
			if (receivedAt.size === n) allReceived();
		});
	});
	receiver.listen(0, '127.0.0.1');
	await once(receiver, 'listening');
	const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

	try {
		const token = await createTenant(site, 'bench-forms');
		await expectStatus(200, call(site.url, token, 'POST', '/api/settings', { contact_form_webhook_url: hook, contact_form_webhook_headers: { 'X-Bench-Secret': 'bench' } }));

		log(`Contact form: ${n} submissions, ${SUBMIT_CONCURRENCY} at a time, delivered to a local receiver`);
		const started = performance.now();
		await pool(n, SUBMIT_CONCURRENCY, async (seq) => {
			sentAt.set(seq, performance.now());
			const response = await fetch(`${site.url}/forms/bench-forms/contact`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ seq, name: `Sender ${seq}`, email: `sender${seq}@example.com`, message: 'Hello from the benchmark.' }),
			});
			await response.arrayBuffer();
			if (response.status !== 202) throw new Error(`contact form: HTTP ${response.status}`);
		});
		const submitted = performance.now();
		const timeout = new Promise<never>((_, reject) =>
			setTimeout(() => reject(new Error(`contact form: ${receivedAt.size} of ${n} delivered within 120 s`)), 120_000).unref(),
		);
		await Promise.race([everything, timeout]);
		const finished = Math.max(...receivedAt.values());
		const latencies = [...receivedAt].map(([seq, at]) => at - sentAt.get(seq)!);
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
				duplicates,
			},
		});
	} finally {
		receiver.closeAllConnections();
		receiver.close();
	}
}
