/** Small numeric helpers. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
	return sorted[rank];
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Runs `fn` and returns its result and the wall time in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
	const start = process.hrtime.bigint();
	const result = await fn();
	return { result, ms: Number(process.hrtime.bigint() - start) / 1e6 };
}

/** Runs `tasks` with at most `concurrency` at a time. */
export async function pool<T>(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<T>,
): Promise<T[]> {
	const results: T[] = new Array(count);
	let next = 0;
	const worker = async () => {
		while (next < count) {
			const index = next++;
			results[index] = await task(index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
	return results;
}

/**
 * Runs each contestant `repeats` times in ABBA order (A B, then B A) so a drift of the machine's
 * load hits both alike, and keeps each one's best time.
 */
export async function bestOf(
	contestants: Record<string, (round: number) => Promise<number>>,
	repeats: number,
) {
	const names = Object.keys(contestants);
	const best: Record<string, number> = {};
	const all: Record<string, number[]> = {};
	for (let r = 0; r < repeats; r++) {
		const order = r % 2 === 0 ? names : [...names].reverse();
		for (const name of order) {
			const ms = await contestants[name](r);
			(all[name] ??= []).push(round(ms, 1));
			best[name] = Math.min(best[name] ?? Infinity, ms);
		}
	}
	return { best, all };
}
