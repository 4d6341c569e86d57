/**
 * A delivered contact-form submission: its shape, the output item and the memory of ids already seen
 * (delivery is at least once, so the same submission may arrive again).
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/** How many submission ids the node remembers to recognise a repeat. */
export const REMEMBERED_SUBMISSIONS = 1000;

/** The keys of a submission as the contract defines it, in output order. */
const SUBMISSION_KEYS = ['submission_id', 'tenant_id', 'form', 'submitted_at'] as const;

interface SeenStaticData extends IDataObject {
	seenSubmissionIds?: string[];
}

export function isJsonObject(value: unknown): value is IDataObject {
	return (
		typeof value === 'object' &&
		value !== null &&
		!Array.isArray(value) &&
		!Buffer.isBuffer(value) &&
		(Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null)
	);
}

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
export function requestJsonObject(request: { body?: unknown; rawBody?: unknown }): IDataObject | undefined {
	const { body, rawBody } = request;
	if (Buffer.isBuffer(rawBody)) {
		let parsed: unknown;
		try {
			parsed = JSON.parse(rawBody.toString('utf8'));
		} catch {
			// Not JSON at all (or empty): not a submission.
			return undefined;
		}
		if (!isJsonObject(parsed)) return undefined;
		return isJsonObject(body) ? body : parsed;
	}
	return isJsonObject(body) ? body : undefined;
}

/** The submission id, when the body carries one (a string or a number). */
export function submissionIdOf(body: IDataObject): string | undefined {
	const id = body.submission_id;
	if (typeof id === 'string' && id !== '') return id;
	if (typeof id === 'number' && Number.isFinite(id)) return String(id);
	return undefined;
}

function seenStore(ctx: IWebhookFunctions): SeenStaticData {
	return ctx.getWorkflowStaticData('node') as SeenStaticData;
}

export function wasSeen(ctx: IWebhookFunctions, submissionId: string): boolean {
	return (seenStore(ctx).seenSubmissionIds ?? []).includes(submissionId);
}

/** Remembers an id, keeping only the newest REMEMBERED_SUBMISSIONS. */
export function rememberSeen(ctx: IWebhookFunctions, submissionId: string): void {
	const store = seenStore(ctx);
	const seen = [...(store.seenSubmissionIds ?? []), submissionId];
	// A new array at the top level, so n8n notices the change and saves the static data.
	store.seenSubmissionIds = seen.slice(Math.max(0, seen.length - REMEMBERED_SUBMISSIONS));
}

export interface OutputOptions {
	liftFields: boolean;
	headers?: IDataObject;
}

/**
 * The output item: `submission_id`, `tenant_id`, `form`, `submitted_at`, `fields` first, then any
 * other top-level key the service sent. With liftFields the form fields sit at the top level beside
 * the submission keys; a field whose name is already taken there stays under `fields`.
 */
export function submissionItem(body: IDataObject, { liftFields, headers }: OutputOptions): IDataObject {
	const fields = isJsonObject(body.fields) ? body.fields : {};
	const item: IDataObject = {};
	for (const key of SUBMISSION_KEYS) item[key] = body[key] ?? null;
	const extraKeys = Object.keys(body).filter(
		(key) => key !== 'fields' && !(SUBMISSION_KEYS as readonly string[]).includes(key),
	);

	if (liftFields) {
		const taken = new Set([...Object.keys(item), ...extraKeys, 'fields', 'headers']);
		const clashing: IDataObject = {};
		for (const [name, value] of Object.entries(fields)) {
			if (taken.has(name)) clashing[name] = value;
			else item[name] = value;
		}
		if (Object.keys(clashing).length > 0) item.fields = clashing;
	} else {
		item.fields = fields;
	}
	for (const key of extraKeys) item[key] = body[key];
	if (headers) item.headers = headers;
	return item;
}
