/**
 * JSON values as the service and n8n hand them over: the one plain-object test, the one fallback for
 * an answer that is not an object, and the one case-insensitive header lookup.
 */
import type { IDataObject } from 'n8n-workflow';

/** Any object whose keys can be read (an Error, a class instance), but not null or an array. */
export function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object: a record that is not a Buffer, stream or other class instance. */
export function isPlainObject(value: unknown): value is IDataObject {
	if (!isRecord(value)) return false;
	const proto = Object.getPrototypeOf(value) as unknown;
	return proto === Object.prototype || proto === null;
}

/** The answer when it is a JSON object, else `fallback` (an empty object unless given). */
export function objectOr(value: unknown, fallback: IDataObject = {}): IDataObject {
	return isPlainObject(value) ? value : fallback;
}

/** The value of the header `name`, whatever the case of its key. */
export function headerValue(headers: IDataObject | null | undefined, name: string): unknown {
	if (!headers) return undefined;
	const wanted = name.toLowerCase();
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === wanted);
	return key === undefined ? undefined : headers[key];
}

/** A value's JSON type for an error message: "null", "an array", "an object", "a string", "a number"… */
export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'object') return 'an object';
	return `a ${typeof value}`;
}

/** The record an answer such as `{message, page}` carries under `key`; the answer itself without one. */
export function recordIn(response: unknown, key: string): IDataObject {
	const answer = (response ?? {}) as IDataObject;
	return objectOr(answer[key], answer);
}

/** JSON text with object keys sorted, so key order does not count as a change. */
export function stableStringify(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const record = value as Record<string, unknown>;
		const entries = Object.keys(record)
			.filter((key) => record[key] !== undefined)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableStringify(record[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value ?? null);
}
