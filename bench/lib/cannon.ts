/**
 * autocannon runs of the server rows: one measurement, and a duel of several servers given the same
 * requests in ABBA order (so a drift of the machine's load hits all alike), each keeping its best round.
 */
import autocannon from 'autocannon';

import { log, SIZES } from './context';
import { round } from './stats';

export const CANNON_CONNECTIONS = 10;

export interface Cannonade {
	rps: number;
	p50: number;
	p99: number;
	total: number;
}

/** One autocannon run; any error, timeout or non-2xx answer fails the bench (a rate of errors means nothing). */
async function cannon(options: autocannon.Options) {
	const result = await autocannon({ connections: CANNON_CONNECTIONS, ...options });
	if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
		throw new Error(
			`autocannon ${options.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`,
		);
	}
	return result;
}

/** SIZES.cannonSeconds of load, after SIZES.cannonWarmSeconds of warm-up unless `warm` is false. */
export async function measure(
	label: string,
	url: string,
	options: Partial<autocannon.Options>,
	warm = true,
): Promise<Cannonade> {
	log(
		`autocannon: ${label} (${warm ? `${SIZES.cannonWarmSeconds} s warm-up, ` : ''}${SIZES.cannonSeconds} s measured, ${CANNON_CONNECTIONS} connections)`,
	);
	if (warm) await cannon({ url, duration: SIZES.cannonWarmSeconds, ...options });
	const result = await cannon({ url, duration: SIZES.cannonSeconds, ...options });
	return {
		rps: result.requests.average,
		p99: result.latency.p99,
		p50: result.latency.p50,
		total: result.requests.total,
	};
}

export interface DuelResult {
	best: Cannonade;
	/** req/s of every round, in order. */
	runs: string;
}

/** A server of a duel; its `options` replace the duel's (the same server asked other requests). */
export interface CannonContestant {
	label: string;
	url: string;
	options?: Partial<autocannon.Options>;
}

/**
 * The contestants (label -> base URL) over SIZES.repeats rounds, forwards in even rounds and
 * backwards in odd ones (A B C, C B A); only the first round warms up. Each keeps its best round.
 */
export async function duel<K extends string>(
	kind: string,
	contestants: Record<K, CannonContestant>,
	options: Partial<autocannon.Options>,
) {
	const names = Object.keys(contestants) as K[];
	const runs = Object.fromEntries(names.map((name) => [name, [] as Cannonade[]])) as Record<
		K,
		Cannonade[]
	>;
	for (let r = 0; r < SIZES.repeats; r++) {
		const order = r % 2 === 0 ? names : [...names].reverse();
		for (const name of order)
			runs[name].push(
				await measure(
					`${contestants[name].label} ${kind}`,
					contestants[name].url,
					contestants[name].options ?? options,
					r === 0,
				),
			);
	}
	return Object.fromEntries(
		names.map((name) => [
			name,
			{
				best: runs[name].reduce((a, b) => (b.rps > a.rps ? b : a)),
				runs: runs[name].map((c) => round(c.rps, 0)).join(' '),
			},
		]),
	) as Record<K, DuelResult>;
}
