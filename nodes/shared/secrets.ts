/**
 * What output may show of the service's secrets, decided here for every node: the values of the
 * fields the service keeps secrets in never leave a node (records, Dry Run previews, `previous`,
 * errors); their names do (a header's name, not its value).
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from './json';

/**
 * The site's delivery headers hold the secret the site sends with each contact-form submission
 * (`X-Site-Webhook-Secret`): whoever reads it can forge that site's deliveries.
 */
const SECRET_FIELDS = new Set(['contact_form_webhook_headers']);

/** What a secret value reads as in output. */
export const HIDDEN_VALUE = '**hidden**';

/** `value` with every string and number below it masked; names, booleans and nulls kept. */
function masked(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(masked);
	if (isPlainObject(value))
		return Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, masked(entry)]));
	return typeof value === 'string' || typeof value === 'number' ? HIDDEN_VALUE : value;
}

/**
 * `value` with the values of every secret field, at any depth, masked. The same object when it holds
 * none (most output), so that a large record is not copied.
 */
export function withoutSecrets<T>(value: T): T {
	if (Array.isArray(value)) {
		const entries = value.map(withoutSecrets);
		return (entries.some((entry, at) => entry !== value[at]) ? entries : value) as T;
	}
	if (!isPlainObject(value)) return value;
	let copy: IDataObject | undefined;
	for (const [name, entry] of Object.entries(value)) {
		const shown = SECRET_FIELDS.has(name) ? masked(entry) : withoutSecrets(entry);
		if (shown === entry) continue;
		copy ??= { ...(value as IDataObject) };
		copy[name] = shown as IDataObject[string];
	}
	return (copy ?? value) as T;
}
