/**
 * Submissions this n8n process has started a workflow for, per trigger node: the fallback for telling
 * repeats where the site cannot hold a claim (manual registration, a service without the claims
 * endpoint). It lives in memory, so it holds within one process only and is empty after a restart;
 * the node never writes it to static data (n8n does not save static data written by webhook()).
 */

/** Submissions remembered per trigger node. */
export const REMEMBERED_SUBMISSIONS = 1000;
/** Trigger nodes remembered per process. */
const REMEMBERED_CONSUMERS = 1000;

/** Consumer -> submission keys, both oldest first (a Map keeps insertion order). */
const recent = new Map<string, Set<string>>();

/**
 * Records the key for the consumer; false when it was already recorded. Check and record happen in one
 * synchronous step, so concurrent requests in this process cannot both see a key as new.
 */
export function recordInProcess(consumer: string, key: string): boolean {
	let keys = recent.get(consumer);
	if (keys) {
		recent.delete(consumer);
	} else {
		keys = new Set();
		if (recent.size >= REMEMBERED_CONSUMERS) recent.delete(recent.keys().next().value as string);
	}
	recent.set(consumer, keys);
	if (keys.has(key)) return false;
	keys.add(key);
	if (keys.size > REMEMBERED_SUBMISSIONS) keys.delete(keys.values().next().value as string);
	return true;
}
