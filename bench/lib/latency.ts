/**
 * Latency of single GET requests, one at a time (no queueing in the figures), the contestants'
 * requests alternating so that a drift of the machine's load hits each alike.
 */
import { percentile } from './stats';

export interface Latencies {
	/** Every request's time in ms, in the order sent. */
	ms: number[];
	p50: number;
	p99: number;
	bytes: number;
}

/** `count` measured requests per url (after `warm` unmeasured ones), each answer read whole. */
export async function alternatingLatencies(
	urls: Record<string, string>,
	token: string,
	count: number,
	warm: number,
): Promise<Record<string, Latencies>> {
	const names = Object.keys(urls);
	const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
	const bytes: Record<string, number> = {};
	for (let i = 0; i < warm + count; i++) {
		for (const name of i % 2 === 0 ? names : [...names].reverse()) {
			const start = process.hrtime.bigint();
			const response = await fetch(urls[name], {
				headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
			});
			const body = await response.arrayBuffer();
			const ms = Number(process.hrtime.bigint() - start) / 1e6;
			if (response.status !== 200) throw new Error(`GET ${urls[name]}: HTTP ${response.status}`);
			bytes[name] = body.byteLength;
			if (i >= warm) times[name].push(ms);
		}
	}
	return Object.fromEntries(
		names.map((name) => [
			name,
			{
				ms: times[name],
				p50: percentile(times[name], 50),
				p99: percentile(times[name], 99),
				bytes: bytes[name],
			},
		]),
	);
}
