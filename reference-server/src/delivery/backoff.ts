/** Longest wait between two attempts, whatever the backoff or Retry-After says. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;

/**
 * Exponential backoff with jitter: a random share between half and all of base * 2^(attempt-1), capped.
 * `attempt` is the number of attempts made so far (1 after the first failure).
 */
export function backoffDelayMs(
	attempt: number,
	baseMs: number,
	random: () => number = Math.random,
): number {
	const exponential = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
	return Math.round((0.5 + 0.5 * random()) * exponential);
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
	if (header === null || header.trim() === '') return undefined;
	const text = header.trim();
	if (/^\d+$/.test(text)) return Math.min(MAX_RETRY_DELAY_MS, Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.min(MAX_RETRY_DELAY_MS, Math.max(0, date - now));
}

export type Verdict = 'delivered' | 'retry' | 'stop';

/**
 * What a receiver that is still setting itself up answers: its URL not served yet (404), or the secret
 * it was just given not stored yet (401). A 403 stays final: the public form answers it to a relayed
 * delivery, and retrying that would run the loop again.
 */
const NOT_READY_STATUSES = new Set([401, 404]);

/**
 * The contract's rules: 2xx ends it; 5xx, 408 and 429 are retried; anything else (other 4xx, 3xx)
 * stops, except a not-ready answer while `settingUp` (the webhook settings changed moments ago).
 */
export function verdictFor(status: number, settingUp = false): Verdict {
	if (status >= 200 && status < 300) return 'delivered';
	if (status >= 500 || status === 408 || status === 429) return 'retry';
	if (settingUp && NOT_READY_STATUSES.has(status)) return 'retry';
	return 'stop';
}
