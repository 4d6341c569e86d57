/**
 * The one way the nodes talk to the Site Management Service.
 *
 * - The credential adds the token (httpRequestWithAuthentication); the base URL comes from it too.
 * - POST, PUT and DELETE carry an Idempotency-Key made once per call and reused by every retry of
 *   that call, so a retry after a lost answer never doubles anything.
 * - 429, 5xx and network failures are retried with exponential backoff and full jitter, honouring
 *   Retry-After; other 4xx fail at once.
 * - Server errors become NodeApiError with the server's message and field details, and no token.
 */
import { randomUUID } from 'crypto';
import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { headerValue, isPlainObject } from './json';
import type { FieldLabels } from './errors';
import {
	networkError,
	readThrownRequestError,
	redirectError,
	requestFailedError,
	serverError,
} from './errors';
import { isRedirectStatus } from './redirect';
import {
	backoffDelay,
	isRetryableNetworkError,
	isRetryableStatus,
	MAX_CONFIGURABLE_RETRIES,
	MAX_RETRIES,
	MAX_RETRY_AFTER_MS,
	parseRetryAfter,
} from './retry';
import { forgetHeldCredentials, heldCredentials } from './heldCredentials';
import { joinUrl } from './url';
import { readConcurrency, runWindow, throwFirstFailure } from './window';

export type SiteCredentialType = 'siteAdminApi' | 'siteTenantApi' | 'siteManagedTenantApi';

/**
 * Who may send: a node's execute context, a trigger's hook context (webhook registration on
 * activation), its webhook context (claiming a delivery), a polling trigger's poll context or the
 * editor's load-options context (list search). All carry getNode, getCredentials and httpRequestWithAuthentication; only an execute context
 * has per-item options (Options > Timeout).
 */
export type SiteRequestContext =
	IExecuteFunctions | IHookFunctions | IWebhookFunctions | IPollFunctions | ILoadOptionsFunctions;

export const DEFAULT_TIMEOUT_MS = 30_000;
const METHODS_WITH_IDEMPOTENCY_KEY: IHttpRequestMethods[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

export type RequestBody = IHttpRequestOptions['body'];

export interface SiteRequest {
	method: IHttpRequestMethods;
	/** Path on the credential's base URL, e.g. `/api/pages`. */
	path: string;
	/** A JSON value, a Buffer or a readable stream (multipart built by the caller). */
	body?: RequestBody;
	/**
	 * Makes a fresh body for each attempt. Use it for stream bodies that should still be retried:
	 * a stream given as `body` is consumed by the first attempt and is therefore never retried.
	 */
	createBody?: () => RequestBody | Promise<RequestBody>;
	qs?: IDataObject;
	headers?: IDataObject;
	/** Ask for JSON (Accept header). Default true. */
	json?: boolean;
}

export interface SiteRequestOptions {
	itemIndex: number;
	/** Milliseconds per attempt. Default: the node's Options > Timeout, else 30000. */
	timeout?: number;
	/** Reuse a key made by the caller (e.g. one key for several calls of one item). */
	idempotencyKey?: string;
	/** The service's field names as the editor shows them, for the field details of an error. */
	fieldLabels?: FieldLabels;
}

/** A response read whole: status, headers and the parsed body. */
export interface SiteResponse {
	statusCode: number;
	headers: IDataObject;
	body: unknown;
}

function isStream(body: unknown): boolean {
	return (
		typeof body === 'object' &&
		body !== null &&
		!Buffer.isBuffer(body) &&
		typeof (body as { pipe?: unknown }).pipe === 'function'
	);
}

function hasHeader(headers: IDataObject, name: string): boolean {
	return headerValue(headers, name) !== undefined;
}

/** The node's Options > Timeout for this item, if the node has that option. */
function configuredTimeout(ctx: SiteRequestContext, itemIndex: number): number {
	// A hook context has no items (and a getNodeParameter without an item index).
	if (!('getInputData' in ctx)) return DEFAULT_TIMEOUT_MS;
	try {
		const value = ctx.getNodeParameter('options.timeout', itemIndex, DEFAULT_TIMEOUT_MS) as number;
		return Number(value) > 0 ? Number(value) : DEFAULT_TIMEOUT_MS;
	} catch {
		return DEFAULT_TIMEOUT_MS;
	}
}

/** The node's Options > Max Retries for this item (0..10), else MAX_RETRIES. */
function configuredMaxRetries(ctx: SiteRequestContext, itemIndex: number): number {
	if (!('getInputData' in ctx)) return MAX_RETRIES;
	try {
		const value = Number(ctx.getNodeParameter('options.maxRetries', itemIndex, MAX_RETRIES));
		return Number.isInteger(value) && value >= 0
			? Math.min(value, MAX_CONFIGURABLE_RETRIES)
			: MAX_RETRIES;
	} catch {
		return MAX_RETRIES;
	}
}

/** What a request needs from the credential and the node's options, read once per call or per walk. */
interface ResolvedSettings {
	baseUrl: string;
	url: (path: string) => string;
	timeout: number;
	maxRetries: number;
	/** Handed to httpRequestWithAuthentication, so that it does not read the credential again. */
	credentials: ICredentialsDecrypted;
	/** Where a webhook context holds the credential (heldCredentials.ts); undefined elsewhere. */
	heldKey: string | undefined;
}

/**
 * The credential, read once per node run (per execution context) and credential type, and handed to
 * every request of that run (httpRequestWithAuthentication's `credentialsDecrypted`).
 * Each getCredentials costs n8n a database read and a decryption, and outside an execution (a
 * trigger's webhook, hook or poll context) a fresh expression isolate too, which made a second read
 * per request the largest part of the Contact Form Trigger's claim (docs/performance.md,
 * `trigger-vs-webhook-node`). n8n writes a refreshed token (preAuthentication) into this same object,
 * so later requests of the run send the refreshed one.
 */
const credentialReads = new WeakMap<
	SiteRequestContext,
	Map<SiteCredentialType, Promise<ICredentialsDecrypted>>
>();
async function readCredentials(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	itemIndex: number,
	heldKey: string | undefined,
): Promise<ICredentialsDecrypted> {
	let byType = credentialReads.get(ctx);
	if (!byType) {
		byType = new Map();
		credentialReads.set(ctx, byType);
	}
	let read = byType.get(credentialType);
	if (!read) {
		const reference = ctx.getNode().credentials?.[credentialType];
		const fromN8n = async () => ({
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: credentialType,
			data: await ctx.getCredentials(credentialType, itemIndex),
		});
		read = heldKey === undefined ? fromN8n() : heldCredentials(heldKey, fromN8n);
		byType.set(credentialType, read);
		// A failed read is not kept: the next item asks again (and fails with its own index).
		read.catch(() => byType.delete(credentialType));
	}
	return await read;
}

/** Where a webhook context's credential is held (heldCredentials.ts); undefined elsewhere. */
function webhookHeldKey(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
): string | undefined {
	if (!('getRequestObject' in ctx)) return undefined;
	const credentialId = ctx.getNode().credentials?.[credentialType]?.id;
	if (!credentialId) return undefined;
	return [ctx.getWorkflow().id ?? '', ctx.getNode().id, credentialType, credentialId].join('/');
}

/**
 * Reads the credential's base URL and the node's Options > Timeout and Max Retries for this item.
 * Each read costs n8n a credential decryption or an expression evaluation, so a walk over many pages
 * (siteApiRequestAllItems) does it once, not once per page.
 */
async function resolveSettings(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	options: SiteRequestOptions,
): Promise<ResolvedSettings> {
	const { itemIndex } = options;
	const heldKey = webhookHeldKey(ctx, credentialType);
	const credentials = await readCredentials(ctx, credentialType, itemIndex, heldKey);
	const baseUrl = String(credentials.data?.baseUrl ?? '');
	return {
		credentials,
		heldKey,
		baseUrl,
		url: (path) => joinUrl(baseUrl, path),
		timeout: options.timeout ?? configuredTimeout(ctx, itemIndex),
		maxRetries: configuredMaxRetries(ctx, itemIndex),
	};
}

/**
 * Sends one request with retries and returns the full response (status, headers, body).
 * Throws NodeApiError for every non-2xx answer that is not retried (or after the last retry).
 */
export async function siteApiRequestFull(
	this: SiteRequestContext,
	credentialType: SiteCredentialType,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	const settings = await resolveSettings(this, credentialType, options);
	let answered = false;
	try {
		const response = await sendRequest(this, credentialType, request, options, settings);
		answered = true;
		return response;
	} finally {
		// A held credential (webhook contexts) may be what failed, e.g. a rotated token: read it
		// again next time.
		if (!answered && settings.heldKey !== undefined) forgetHeldCredentials(settings.heldKey);
	}
}

async function sendRequest(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	request: SiteRequest,
	options: SiteRequestOptions,
	{ baseUrl, url: urlFor, timeout, maxRetries, credentials }: ResolvedSettings,
): Promise<SiteResponse> {
	const { itemIndex } = options;
	const node = ctx.getNode();
	const url = urlFor(request.path);
	const errorContext = { baseUrl, fieldLabels: options.fieldLabels };

	const headers: IDataObject = { ...(request.headers ?? {}) };
	if (
		METHODS_WITH_IDEMPOTENCY_KEY.includes(request.method) &&
		!hasHeader(headers, 'idempotency-key')
	) {
		headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
	}

	let attempt = 0;
	let reauthenticated = false;
	for (;;) {
		let body = request.createBody ? await request.createBody() : request.body;
		if (isPlainObject(body) && Object.keys(body).length === 0 && request.method !== 'GET') {
			// n8n's HTTP layer silently drops an empty object body; send the JSON text `{}` instead.
			body = '{}';
			if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
		}
		// A stream given directly can be sent once only; everything else can be sent again.
		const canRetry = attempt < maxRetries && (request.createBody !== undefined || !isStream(body));

		const requestOptions: IHttpRequestOptions = {
			method: request.method,
			url,
			headers: { ...headers },
			qs: request.qs,
			body,
			json: request.json ?? true,
			timeout,
			returnFullResponse: true,
			// No ignoreHttpStatusErrors: every non-2xx throws and is read in the catch below. A 401 must
			// throw, as that is what makes n8n re-run preAuthentication (a fresh managed token) and retry
			// once; the object form `{ ignore: true, except: [401] }` would do it on n8n 2.x, but n8n 1.x
			// reads any object as `true` and then never refreshes the token.
		};
		if (requestOptions.qs === undefined) delete requestOptions.qs;
		if (requestOptions.body === undefined) delete requestOptions.body;
		// The service never redirects: following one would resend the token and the body to the host
		// the Location names. A 3xx throws and becomes redirectError below. (Not following
		// also keeps n8n's client from holding a copy of a streamed body for a replay.)
		requestOptions.disableFollowRedirect = true;

		let status: number;
		// Undefined when n8n did not pass the answer's headers on (n8n 1.x drops a thrown answer's).
		let responseHeaders: IDataObject | undefined = {};
		let responseBody: unknown;
		try {
			const response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				credentialType,
				requestOptions,
				{ credentialsDecrypted: credentials },
			)) as IN8nHttpFullResponse;
			status = response.statusCode;
			responseHeaders = response.headers ?? {};
			responseBody = response.body;
		} catch (error) {
			const failure = readThrownRequestError(error);
			if (failure.status === undefined) {
				// No answer at all: a network failure (or a cancelled execution, which is not retried).
				const transient = isRetryableNetworkError(failure.code, failure.message);
				if (canRetry && transient) {
					await sleep(backoffDelay(attempt));
					attempt++;
					continue;
				}
				throw transient
					? networkError(node, failure.code, failure.message, itemIndex, attempt + 1, errorContext)
					: requestFailedError(node, failure.message, itemIndex);
			}
			if (
				failure.status === 401 &&
				credentialType === 'siteManagedTenantApi' &&
				request.createBody !== undefined &&
				!reauthenticated
			) {
				// n8n refreshed the managed token but could not resend a consumed stream body; a fresh
				// body can go once more with the new token.
				reauthenticated = true;
				continue;
			}
			status = failure.status;
			responseHeaders = failure.headers;
			responseBody = failure.body;
		}

		if (status >= 200 && status < 300) {
			return { statusCode: status, headers: responseHeaders ?? {}, body: responseBody };
		}
		if (isRedirectStatus(status)) {
			throw redirectError(node, url, status, responseHeaders, itemIndex);
		}
		if (canRetry && isRetryableStatus(status)) {
			const retryAfter = parseRetryAfter(headerValue(responseHeaders, 'retry-after'));
			if (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS) {
				await sleep(retryAfter ?? backoffDelay(attempt));
				attempt++;
				continue;
			}
		}
		throw serverError(node, status, responseBody, itemIndex, errorContext);
	}
}

/** Sends one request (see siteApiRequestFull) and returns the parsed response body. */
export async function siteApiRequest(
	this: SiteRequestContext,
	credentialType: SiteCredentialType,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	const response = await siteApiRequestFull.call(this, credentialType, request, options);
	return response.body;
}

/** A list that may come bare (`[...]`) or wrapped (`{data: [...]}`); anything else is an empty list. */
export function unwrapList(response: unknown): IDataObject[] {
	if (Array.isArray(response)) return response as IDataObject[];
	if (isPlainObject(response) && Array.isArray(response.data))
		return response.data as IDataObject[];
	return [];
}

const PAGE_SIZE = 100;

export interface AllItemsOptions {
	returnAll: boolean;
	/** Used when returnAll is false. */
	limit?: number;
}

/**
 * Walks a `page`/`per_page` list until `meta.last_page`, or, where the server sends no meta, until an
 * empty or short page. Stops early once `limit` items are collected. When the first page tells how
 * many pages there are, the rest are fetched Options > Concurrency at a time (one after the other in
 * version 1) and joined in page order.
 */
export async function siteApiRequestAllItems(
	this: IExecuteFunctions,
	credentialType: SiteCredentialType,
	path: string,
	qs: IDataObject,
	{ returnAll, limit = 50 }: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const wanted = returnAll ? Infinity : Math.max(0, limit);
	const perPage = returnAll ? PAGE_SIZE : Math.min(PAGE_SIZE, Math.max(1, wanted));
	const items: IDataObject[] = [];
	if (wanted === 0) return items;

	// The credential and options are the same for every page of the walk: read them once.
	const settings = await resolveSettings(this, credentialType, options);
	const concurrency = readConcurrency(this);
	const fetchPage = async (page: number) =>
		(
			await sendRequest(
				this,
				credentialType,
				{ method: 'GET', path, qs: { ...qs, page, per_page: perPage } },
				options,
				settings,
			)
		).body;

	for (let page = 1; ; page++) {
		const response = await fetchPage(page);
		const batch = unwrapList(response);
		items.push(...batch);
		if (items.length >= wanted) return items.slice(0, wanted);

		const meta =
			isPlainObject(response) && isPlainObject(response.meta) ? response.meta : undefined;
		const lastPage = Number(meta?.last_page);
		if (meta && Number.isFinite(lastPage)) {
			if (page >= lastPage) return items;
			if (page === 1 && concurrency > 1) {
				const lastNeeded = Math.min(lastPage, Math.ceil(wanted / perPage));
				const pages: IDataObject[][] = [];
				throwFirstFailure(
					await runWindow(2, lastNeeded + 1, concurrency, async (next) => {
						pages[next] = unwrapList(await fetchPage(next));
					}),
				);
				for (let next = 2; next <= lastNeeded; next++) items.push(...pages[next]);
				return items.slice(0, wanted);
			}
		} else if (batch.length < perPage) {
			return items;
		}
		// A server that ignores `page` would hand back the same rows forever: stop on an empty page.
		if (batch.length === 0) return items;
	}
}
