import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` count as the same request. */
export function stableJson(value: unknown): string {
	if (value === undefined) return '';
	if (value === null || typeof value !== 'object') return JSON.stringify(value);
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	const entries = Object.keys(value as object)
		.sort()
		.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
	return `{${entries.join(',')}}`;
}

/**
 * What makes two requests "the same" for the Idempotency-Key (plugins/idempotency.ts): method, URL
 * and the body's stable JSON (or, for a multipart upload, what stands for it).
 */
export function requestHash(method: string, url: string, body: string): string {
	return createHash('sha256').update(`${method} ${url}\n${body}`).digest('hex');
}
