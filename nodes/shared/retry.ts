/**
 * When and how long to wait before sending a request again.
 *
 * The contract says: retry 429 and 5xx (transient) and network failures with exponential backoff and
 * jitter, honour `Retry-After`, never retry any other 4xx as it is.
 */
import { TOKEN_MINT_UNAVAILABLE } from './tokenMint';

export const RETRY_BASE_DELAY_MS = 250;
export const RETRY_MAX_DELAY_MS = 10_000;
/** Retries by default (Options > Max Retries changes it, up to MAX_CONFIGURABLE_RETRIES). */
export const MAX_RETRIES = 5;
export const MAX_CONFIGURABLE_RETRIES = 10;
/** A server asking for a longer pause than this fails the item instead of stalling the workflow. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Error codes of a request that never got an answer: safe to send again with the same Idempotency-Key. */
const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'ECONNABORTED',
	'EPIPE',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	// A mint of a tenant token that failed transiently (central surface unreachable, 429 or 5xx):
	// sending the request again mints again.
	TOKEN_MINT_UNAVAILABLE,
]);

const RETRYABLE_NETWORK_MESSAGES = ['socket hang up', 'network error', 'timeout of'];

export function isRetryableStatus(status: number): boolean {
	return status === 429 || (status >= 500 && status <= 599);
}

/** True for errors that mean "no response arrived" (connection refused, reset, dropped, timed out). */
export function isRetryableNetworkError(
	code: string | undefined,
	message: string | undefined,
): boolean {
	if (code && RETRYABLE_NETWORK_CODES.has(code.toUpperCase())) return true;
	const text = (message ?? '').toLowerCase();
	if ([...RETRYABLE_NETWORK_CODES].some((known) => text.includes(known.toLowerCase()))) return true;
	return RETRYABLE_NETWORK_MESSAGES.some((known) => text.includes(known));
}

/**
 * The three HTTP-date forms (RFC 9110 5.6.7) all start with a day name: IMF-fixdate
 * `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 ...`, asctime `Sun Nov  6 ...`.
 * Anything else is not a date here, though Date.parse would read `-5` or `1` as a year.
 */
const HTTP_DATE_START = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * Parses a `Retry-After` header: delta seconds or an HTTP date. Returns milliseconds to wait, or
 * undefined when the header is absent or unreadable (negative, signed, exponent, not a date): then
 * the backoff applies.
 */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (raw === undefined || raw === null || raw === '') return undefined;
	const text = String(raw).trim();
	if (/^\d+(\.\d+)?$/.test(text)) {
		const ms = Math.round(Number(text) * 1000);
		return Number.isFinite(ms) ? ms : undefined;
	}
	if (!HTTP_DATE_START.test(text)) return undefined;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with full jitter: a random pause in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
	const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** attempt);
	return Math.floor(random() * ceiling);
}
