/** When and how long the transport waits before sending again: pure functions, tested directly. */
import {
	backoffDelay,
	isRetryableNetworkError,
	isRetryableStatus,
	parseRetryAfter,
	RETRY_BASE_DELAY_MS,
	RETRY_MAX_DELAY_MS,
} from '../../../nodes/shared/retry';

describe('retry', () => {
	test('parseRetryAfter reads seconds and HTTP dates, ignores junk', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('0', now)).toBe(0);
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
		expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
	});

	test('parseRetryAfter: malformed values (negative, signed, exponent, bare years, overflow, bad dates) fall back to the backoff', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		for (const junk of [
			'-5',
			'-0',
			'+5',
			'5e3',
			'1e400',
			'1'.repeat(400),
			'0x10',
			'5 s',
			'5,5',
			'.5',
			'1.',
			'Infinity',
			'NaN',
			'-1',
			'12/31/2025',
			'Thu, 99 Foo 2026 00:00:00 GMT',
			'   ',
			[],
			{},
		]) {
			expect({ junk, ms: parseRetryAfter(junk, now) }).toEqual({ junk, ms: undefined });
		}
		// The obsolete HTTP-date forms still count.
		expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('Thu Jan  1 00:00:07 2026', now)).toBe(7000);
	});

	test('backoffDelay grows exponentially with full jitter and a cap', () => {
		expect(backoffDelay(0, () => 0)).toBe(0);
		expect(backoffDelay(0, () => 0.999999)).toBe(RETRY_BASE_DELAY_MS - 1);
		expect(backoffDelay(1, () => 0.5)).toBe(RETRY_BASE_DELAY_MS);
		expect(backoffDelay(3, () => 0.5)).toBe(RETRY_BASE_DELAY_MS * 4);
		expect(backoffDelay(30, () => 0.999999)).toBeLessThan(RETRY_MAX_DELAY_MS);
		expect(backoffDelay(30, () => 0.999999)).toBeGreaterThan(RETRY_MAX_DELAY_MS - 2);
		const samples = Array.from({ length: 200 }, () => backoffDelay(2));
		expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
		expect(Math.max(...samples)).toBeLessThan(RETRY_BASE_DELAY_MS * 4);
		expect(new Set(samples).size).toBeGreaterThan(10);
	});

	test('which statuses and network errors are retried', () => {
		for (const status of [429, 500, 502, 503, 504, 599])
			expect(isRetryableStatus(status)).toBe(true);
		for (const status of [200, 400, 401, 403, 404, 408, 409, 413, 415, 422])
			expect(isRetryableStatus(status)).toBe(false);
		expect(isRetryableNetworkError('ECONNRESET', undefined)).toBe(true);
		expect(isRetryableNetworkError('econnrefused', undefined)).toBe(true);
		expect(isRetryableNetworkError(undefined, 'socket hang up')).toBe(true);
		expect(isRetryableNetworkError(undefined, 'timeout of 300ms exceeded')).toBe(true);
		expect(isRetryableNetworkError('SITE_TOKEN_MINT_UNAVAILABLE', 'x')).toBe(true);
		expect(isRetryableNetworkError('ERR_INVALID_URL', 'Invalid URL')).toBe(false);
		expect(isRetryableNetworkError(undefined, 'The operation was aborted')).toBe(false);
	});
});
