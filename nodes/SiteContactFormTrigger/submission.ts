/**
 * A delivered contact-form submission: its shape, its id and the output item.
 */
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import { setOwn } from './objects';

/** The longest submission_id accepted (the site's are UUIDs, 36 characters). */
const MAX_SUBMISSION_ID_LENGTH = 200;

/** The keys of a submission as the contract defines it, in output order. */
const SUBMISSION_KEYS = ['submission_id', 'tenant_id', 'form', 'submitted_at'] as const;

/**
 * Whether the Content-Type is `application/json` (parameters such as charset allowed). n8n parses a
 * webhook body as JSON for exactly this media type; any other type never reaches the node as JSON.
 */
export function isJsonContentType(contentType: unknown): boolean {
	if (typeof contentType !== 'string') return false;
	return contentType.split(';')[0].trim().toLowerCase() === 'application/json';
}

/**
 * The request body when it is a JSON object, else undefined. n8n turns an empty body and a JSON
 * `null` into `{}`, so the bytes received (`rawBody`, kept by n8n's body reader) decide when present.
 */
export function requestJsonObject(request: {
	body?: unknown;
	rawBody?: unknown;
}): IDataObject | undefined {
	const { body, rawBody } = request;
	if (Buffer.isBuffer(rawBody)) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(rawBody.toString('utf8'));
		} catch {
			// Not JSON at all (or empty): not a submission.
			return undefined;
		}
		if (!isPlainObject(parsed)) return undefined;
		return isPlainObject(body) ? body : parsed;
	}
	return isPlainObject(body) ? body : undefined;
}

/** What a body's submission_id says: none, one (with the key repeats are told by), or a bad one. */
type SubmissionIdentity =
	| { kind: 'none' }
	| { kind: 'id'; id: string | number; key: string }
	| { kind: 'invalid'; problem: string };

/**
 * The submission id, when the body carries one (a string or a number). The key is the id as JSON
 * text, so `1` and `"1"` are two submissions; an id longer than MAX_SUBMISSION_ID_LENGTH is refused.
 */
export function submissionIdentity(body: IDataObject): SubmissionIdentity {
	const id = body.submission_id;
	if (id === undefined || id === null || id === '') return { kind: 'none' };
	if (typeof id === 'number' && Number.isFinite(id))
		return { kind: 'id', id, key: JSON.stringify(id) };
	if (typeof id !== 'string')
		return { kind: 'invalid', problem: 'submission_id must be a string or a number' };
	if (id.length > MAX_SUBMISSION_ID_LENGTH) {
		return {
			kind: 'invalid',
			problem: `submission_id must not be longer than ${MAX_SUBMISSION_ID_LENGTH} characters`,
		};
	}
	return { kind: 'id', id, key: JSON.stringify(id) };
}

interface OutputOptions {
	liftFields: boolean;
	headers?: IDataObject;
}

/**
 * The output item: `submission_id`, `tenant_id`, `form`, `submitted_at`, `fields` first, then any
 * other top-level key the service sent. With liftFields the form fields sit at the top level beside
 * the submission keys; a field whose name is already taken there stays under `fields`.
 */
export function submissionItem(
	body: IDataObject,
	{ liftFields, headers }: OutputOptions,
): IDataObject {
	const fields = isPlainObject(body.fields) ? body.fields : {};
	const item: IDataObject = {};
	for (const key of SUBMISSION_KEYS) setOwn(item, key, body[key] ?? null);
	const extraKeys = Object.keys(body).filter(
		(key) => key !== 'fields' && !(SUBMISSION_KEYS as readonly string[]).includes(key),
	);

	if (liftFields) {
		const taken = new Set([...Object.keys(item), ...extraKeys, 'fields', 'headers']);
		const clashing: IDataObject = {};
		for (const [name, value] of Object.entries(fields))
			setOwn(taken.has(name) ? clashing : item, name, value);
		if (Object.keys(clashing).length > 0) setOwn(item, 'fields', clashing);
	} else {
		setOwn(item, 'fields', fields);
	}
	for (const key of extraKeys) setOwn(item, key, body[key]);
	if (headers) setOwn(item, 'headers', headers);
	return item;
}
