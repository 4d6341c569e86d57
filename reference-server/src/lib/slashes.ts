/**
 * `value` without the slashes it ends with. A loop, not `/\/+$/`: that pattern backtracks over
 * every run of slashes, quadratic in a long one (test/reliability/linear-patterns.test.ts, at the
 * package root).
 */
export function withoutTrailingSlashes(value: string): string {
	let end = value.length;
	while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
	return value.slice(0, end);
}
