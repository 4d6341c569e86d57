/**
 * The one way the nodes talk to the Site Management Service.
 *
 * - Where an item's request goes (credential, tenant, base URL, Timeout, Max Retries) is decided by
 *   target.ts, per item: expressions in credential fields are per item, and an edited credential acts
 *   from the next request on. The Tenant Token and Admin credentials add their token through n8n
 *   (httpRequestWithAuthentication); a Managed Tenant credential's requests carry the run's token for
 *   the item's tenant (managedTenant.ts).
 * - POST, PUT and DELETE carry an Idempotency-Key made once per call and reused by every retry of
 *   that call, so a retry after a lost answer never doubles anything.
 * - 429, 5xx and network failures are retried with exponential backoff and full jitter, honouring
 *   Retry-After; other 4xx fail at once.
 * - Server errors become NodeApiError with the server's message and field details, and no token.
 */
import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { AnswerTooLargeError, isReadableBody, parseAnswer, readCapped } from './cappedBody';
import { headerValue, isPlainObject } from './json';
import type { FieldLabels } from './errors';
import {
	answerTooLargeError,
	mintFailedError,
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
	MAX_RETRY_AFTER_MS,
	parseRetryAfter,
} from './retry';
import type { CancelSignal } from './cancel';
import { cancelSignalOf, ExecutionCancelledError, pause } from './cancel';
import { mayWrite } from './dryRun';
import { managedTenantToken } from './managedTenant';
import { mintStatusOf } from './tokenMint';
import type { RequestTarget, SiteCredentialType, SiteRequestContext } from './target';
import { resolveRequestTarget } from './target';
import { isToolForm } from './toolForm';
import { joinUrl } from './url';
import { readConcurrency, runWindow, throwFirstFailure } from './window';

export type { SiteCredentialType, SiteRequestContext } from './target';

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
	/** Milliseconds per attempt. Default: the node's Options > Timeout, else 30000 (target.ts). */
	timeout?: number;
	/** Reuse a key made by the caller (e.g. one key for several calls of one item). */
	idempotencyKey?: string;
	/** The service's field names as the editor shows them, for the field details of an error. */
	fieldLabels?: FieldLabels;
	/** Ends the request (and its retries) when it aborts, besides the execution's cancel signal. */
	signal?: AbortSignal;
	/** The longest answer read; a longer one fails the request unread (cappedBody.ts). */
	maxResponseBytes?: number;
	/**
	 * Managed Tenant: the tenant to act on instead of the node's Tenant parameter (a trigger serving
	 * several tenants), still within the credential's scope (target.ts).
	 */
	tenant?: string;
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

/** How one call reaches the service with its item's credential. */
interface SiteAuth {
	/** Sends one attempt with the credential's token. */
	send(options: IHttpRequestOptions): Promise<IN8nHttpFullResponse>;
	/** After a 401: gets a fresh token for one more attempt; false when there is none to get. */
	renew(): Promise<boolean>;
}

/** What a request needs, resolved once per call or per walk over pages. */
interface ResolvedSettings {
	auth: SiteAuth;
	baseUrl: string;
	timeout: number;
	maxRetries: number;
	signal: CancelSignal | undefined;
}

/** Sends with n8n's authentication of the credential (Tenant Token, Admin): the data read for the item. */
function n8nAuth(ctx: SiteRequestContext, target: RequestTarget): SiteAuth {
	const reference = ctx.getNode().credentials?.[target.credentialType];
	return {
		send: async (options) =>
			(await ctx.helpers.httpRequestWithAuthentication.call(ctx, target.credentialType, options, {
				credentialsDecrypted: {
					id: reference?.id ?? '',
					name: reference?.name ?? '',
					type: target.credentialType,
					data: target.credentials,
				},
			})) as IN8nHttpFullResponse,
		renew: async () => false,
	};
}

/** Sends with the run's token for the tenant (managedTenant.ts); a refused token is replaced once. */
function managedAuth(
	ctx: SiteRequestContext,
	target: RequestTarget,
	tenantId: string,
	signal: CancelSignal | undefined,
): SiteAuth {
	// The token request keeps to Options > Timeout too.
	const timeout = target.timeout;
	let token: string | undefined;
	let renewed = false;
	return {
		send: async (options) => {
			token ??= await managedTenantToken(
				ctx,
				target.credentials,
				tenantId,
				signal,
				undefined,
				timeout,
			);
			return (await ctx.helpers.httpRequest({
				...options,
				headers: { ...options.headers, Authorization: `Bearer ${token}` },
			})) as IN8nHttpFullResponse;
		},
		renew: async () => {
			if (renewed || token === undefined) return false;
			renewed = true;
			token = await managedTenantToken(ctx, target.credentials, tenantId, signal, token, timeout);
			return true;
		},
	};
}

/**
 * The item's target (target.ts) and the token that goes with it. Each read costs n8n a credential
 * decryption or an expression evaluation, so a walk over many pages (siteApiRequestAllItems) does it
 * once per item, not once per page.
 */
async function resolveSettings(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	options: SiteRequestOptions,
): Promise<ResolvedSettings> {
	const target = await resolveRequestTarget(
		ctx,
		credentialType,
		options.itemIndex,
		options.timeout,
		options.tenant,
	);
	const cancel = cancelSignalOf(ctx);
	const signal =
		cancel && options.signal
			? AbortSignal.any([cancel, options.signal])
			: (cancel ?? options.signal);
	const auth =
		target.tenantId !== undefined
			? managedAuth(ctx, target, target.tenantId, signal)
			: n8nAuth(ctx, target);
	return {
		auth,
		baseUrl: target.baseUrl,
		timeout: target.timeout,
		maxRetries: target.maxRetries,
		signal,
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
	return await sendRequest(this, request, options, settings);
}

async function sendRequest(
	ctx: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
	{ auth, baseUrl, timeout, maxRetries, signal }: ResolvedSettings,
): Promise<SiteResponse> {
	const { itemIndex } = options;
	const node = ctx.getNode();
	if (!mayWrite(ctx, request.method, itemIndex))
		throw new NodeOperationError(
			node,
			`Dry Run: ${request.method} ${request.path} was not sent, a dry run sends only reads`,
			{ itemIndex },
		);
	const url = joinUrl(baseUrl, request.path);
	// An agent's tool answers its model: an error there names no address of the service.
	const asTool = isToolForm(node);
	const errorContext = { baseUrl: asTool ? undefined : baseUrl, fieldLabels: options.fieldLabels };

	const headers: IDataObject = { ...(request.headers ?? {}) };
	if (
		METHODS_WITH_IDEMPOTENCY_KEY.includes(request.method) &&
		!hasHeader(headers, 'idempotency-key')
	) {
		headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
	}

	let attempt = 0;
	for (;;) {
		if (signal?.aborted) throw cancelledError(ctx, itemIndex);
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
			// Every answer comes back whole, its headers included: n8n 1.x drops the headers of an
			// answer it throws (Retry-After, Location). No request here relies on n8n's refresh after a
			// 401: the managed token is renewed below.
			ignoreHttpStatusErrors: true,
		};
		if (signal) requestOptions.abortSignal = signal;
		if (options.maxResponseBytes !== undefined) requestOptions.encoding = 'stream';
		if (requestOptions.qs === undefined) delete requestOptions.qs;
		if (requestOptions.body === undefined) delete requestOptions.body;
		// The service never redirects: following one would resend the token and the body to the host
		// the Location names. A 3xx throws and becomes redirectError below. (Not following
		// also keeps n8n's client from holding a copy of a streamed body for a replay.)
		requestOptions.disableFollowRedirect = true;

		let status: number;
		// Undefined when n8n did not pass the answer's headers on (an answer thrown after all).
		let responseHeaders: IDataObject | undefined = {};
		let responseBody: unknown;
		try {
			const response = await auth.send(requestOptions);
			status = response.statusCode;
			responseHeaders = response.headers ?? {};
			responseBody = response.body;
			if (options.maxResponseBytes !== undefined && isReadableBody(responseBody))
				responseBody = parseAnswer(
					await readCapped(responseBody, options.maxResponseBytes, signal),
				);
		} catch (error) {
			if (signal?.aborted) throw cancelledError(ctx, itemIndex);
			if (error instanceof AnswerTooLargeError)
				throw answerTooLargeError(node, request, error.maxBytes, itemIndex);
			const failure = readThrownRequestError(error);
			if (failure.status === undefined) {
				// No answer at all: a network failure (or a failed mint of a managed token).
				const transient = isRetryableNetworkError(failure.code, failure.message);
				if (canRetry && transient) {
					await wait(ctx, backoffDelay(attempt), signal, itemIndex);
					attempt++;
					continue;
				}
				// The client's message names the address it could not reach: not for a model.
				const message = asTool
					? `The site could not be reached (${failure.code ?? 'no answer'})`
					: failure.message;
				// A token mint the Admin API refused: its status, like any answer's.
				const mintStatus = mintStatusOf(error);
				if (mintStatus !== undefined) throw mintFailedError(node, message, itemIndex, mintStatus);
				throw transient
					? networkError(node, failure.code, message, itemIndex, attempt + 1, errorContext)
					: requestFailedError(node, message, itemIndex);
			}
			status = failure.status;
			responseHeaders = failure.headers;
			responseBody = failure.body;
		}

		// A managed token the service refused (expired, revoked): once more with a fresh one. A stream
		// given directly cannot be sent again.
		if (
			status === 401 &&
			(request.createBody !== undefined || !isStream(body)) &&
			(await auth.renew())
		) {
			continue;
		}

		if (status >= 200 && status < 300) {
			return { statusCode: status, headers: responseHeaders ?? {}, body: responseBody };
		}
		if (isRedirectStatus(status)) {
			throw asTool
				? requestFailedError(
						node,
						`The site answered with a redirect (HTTP ${status}); it was not followed.`,
						itemIndex,
					)
				: redirectError(node, url, status, responseHeaders, itemIndex);
		}
		if (canRetry && isRetryableStatus(status)) {
			const retryAfter = parseRetryAfter(headerValue(responseHeaders, 'retry-after'));
			if (retryAfter === undefined || retryAfter <= MAX_RETRY_AFTER_MS) {
				await wait(ctx, retryAfter ?? backoffDelay(attempt), signal, itemIndex);
				attempt++;
				continue;
			}
		}
		throw serverError(node, status, responseBody, itemIndex, errorContext);
	}
}

function cancelledError(ctx: SiteRequestContext, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), new ExecutionCancelledError(), { itemIndex });
}

/** A backoff or Retry-After wait that ends when the execution is cancelled. */
async function wait(
	ctx: SiteRequestContext,
	ms: number,
	signal: CancelSignal | undefined,
	itemIndex: number,
): Promise<void> {
	try {
		await pause(ms, signal);
	} catch (error) {
		if (error instanceof ExecutionCancelledError) throw cancelledError(ctx, itemIndex);
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
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

/** A list's `meta.last_page`, when the server sends one. */
export function lastPageOf(response: unknown): number | undefined {
	const meta = isPlainObject(response) && isPlainObject(response.meta) ? response.meta : undefined;
	const lastPage = Number(meta?.last_page);
	return meta && Number.isFinite(lastPage) ? lastPage : undefined;
}

/** The page an editor list search asks for (its paginationToken), from 1. */
export function searchPageOf(paginationToken: string | undefined): number {
	return Math.max(1, Number(paginationToken) || 1);
}

/** The paginationToken of the page after `page`, or none when `page` is the last. */
export function nextSearchPage(page: number, lastPage: number | undefined): string | undefined {
	return lastPage !== undefined && page < lastPage ? String(page + 1) : undefined;
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
 * many pages there are, a node with items fetches the rest Options > Concurrency at a time and joins
 * them in page order; a trigger walks them one by one.
 */
export async function siteApiRequestAllItems(
	this: SiteRequestContext,
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
	const concurrency = 'getInputData' in this ? readConcurrency(this) : 1;
	const fetchPage = async (page: number) =>
		(
			await sendRequest(
				this,
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

		const lastPage = lastPageOf(response);
		if (lastPage !== undefined) {
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
