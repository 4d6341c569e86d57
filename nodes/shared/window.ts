/**
 * Requests in flight at once (Options > Concurrency): how many, and the sliding window that runs
 * them. Used for the items of a node (router.ts) and for the pages of a Get Many (transport.ts).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

/** Options > Concurrency when it is not set. */
export const DEFAULT_CONCURRENCY = 32;
export const MAX_CONCURRENCY = 64;

export function positiveInteger(value: unknown, fallback: number, max = Infinity): number {
	const number = Number(value);
	return Number.isFinite(number) && number >= 1 ? Math.min(Math.floor(number), max) : fallback;
}

/** Options > Concurrency, else DEFAULT_CONCURRENCY. Read once per node run, like n8n's HTTP Request node. */
export function readConcurrency(ctx: IExecuteFunctions): number {
	// null: the option is not set (n8n throws for a missing parameter without a fallback).
	const configured = ctx.getNodeParameter('options.concurrency', 0, null);
	return configured === null
		? DEFAULT_CONCURRENCY
		: positiveInteger(configured, DEFAULT_CONCURRENCY, MAX_CONCURRENCY);
}

/**
 * Runs `run` for the indexes [start, end) with at most `concurrency` in flight, a new one starting as
 * each finishes (no barrier). After a failure no new index starts; the ones in flight are awaited.
 * Returns the failures by index.
 */
export async function runWindow(
	start: number,
	end: number,
	concurrency: number,
	run: (index: number) => Promise<void>,
	stopped: () => boolean = () => false,
): Promise<Map<number, unknown>> {
	const failures = new Map<number, unknown>();
	let next = start;
	const lane = async () => {
		while (next < end && failures.size === 0 && !stopped()) {
			const index = next++;
			try {
				await run(index);
			} catch (error) {
				failures.set(index, error);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, end - start) }, lane));
	return failures;
}

/**
 * Throws the failure first in input order (whichever failed first in time): the one a node without
 * Continue On Fail reports.
 */
export function throwFirstFailure(failures: Map<number, unknown>): void {
	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
}
