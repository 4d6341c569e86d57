/**
 * Objects built from data someone else sent (a delivery's body, request headers).
 */
import type { IDataObject } from 'n8n-workflow';

/**
 * Sets an own, enumerable property. Plain assignment of a key named `__proto__` would replace the
 * object's prototype instead: received keys are data, never structure.
 */
export function setOwn(target: IDataObject, key: string, value: unknown): void {
	Object.defineProperty(target, key, {
		value,
		enumerable: true,
		writable: true,
		configurable: true,
	});
}
