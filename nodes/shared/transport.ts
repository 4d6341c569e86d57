/**
 * The sender: the one way the nodes talk to the Site Management Service (operation → sender → n8n's
 * helper, through the strategy of auth.ts).
 *
 * - Where an item's request goes (credential, tenant, base URL, Timeout, Max Retries, Dry Run) is its
 *   target, resolved once per item (target.ts) and passed in; the triggers and list searches resolve
 *   theirs the same way.
 * - A dry run sends reads only: every other request is refused here, whatever the operation.
 * - POST, PUT and DELETE carry an Idempotency-Key made once per call and reused by every retry of
 *   that call, so a retry after a lost answer never doubles anything.
 * - 429, 5xx and network failures are retried with exponential backoff and full jitter, honouring
 *   Retry-After; other 4xx fail at once. A redirect is never followed.
 * - Server errors become NodeApiError with the server's message and field details, and no token.
 */
import { randomUUID } from 'crypto';
import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	NodeApiError,
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
import type { SiteAuth } from './auth';
import { bearerAuth, targetAuth } from './auth';
import type { CancelSignal } from './cancel';
import { cancelSignalOf, ExecutionCancelledError, pause } from './cancel';
import type { MintSend } from './tokenMint';
import { mintStatusOf } from './tokenMint';
import type { RequestTarget, SiteRequestContext } from './target';
import { isToolForm } from './toolForm';
import { joinUrl } from './url';
import { readConcurrency, runWindow, throwFirstFailure } from './window';

export type { RequestTarget, SiteCredentialType, SiteRequestContext } from './target';

const METHODS_WITH_IDEMPOTENCY_KEY: IHttpRequestMethods[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods a dry run may send. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type RequestBody = IHttpRequestOptions['body'];

export interface SiteRequest {
	method: IHttpRequestMethods;
	/** Path on the base URL, e.g. `/api/pages`. */
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

/** How one request is sent, whatever its route. */
export interface SendOptions {
	itemIndex: number;
	/** Reuse a key made by the caller (e.g. one key for several calls of one item). */
	idempotencyKey?: string;
	/** The service's field names as the editor shows them, for the field details of an error. */
	fieldLabels?: FieldLabels;
	/** Ends the request (and its retries) when it aborts, besides the execution's cancel signal. */
	signal?: AbortSignal;
	/** The longest answer read; a longer one fails the request unread (cappedBody.ts). */
	maxResponseBytes?: number;
	/** Answers handed back as they are instead of failing (an extension's 404, a claim's answer). */
	acceptStatus?: (status: number) => boolean;
}

/** An item's request: how it is sent and where (its target, resolved once per item: target.ts). */
export interface SiteRequestOptions extends SendOptions {
	target: RequestTarget;
}

/** The item and where its requests go: what an operation hands its helpers. */
export type SiteItem = Pick<SiteRequestOptions, 'itemIndex' | 'target'>;

/** Where a request goes and how it proves its sender. */
export interface Route {
	baseUrl: string;
	auth: SiteAuth;
	/** Milliseconds per attempt. */
	timeout: number;
	maxRetries: number;
	/** A dry run sends reads only. */
	dryRun: boolean;
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

/** The execution's cancel signal joined with the request's own. */
function signalOf(ctx: SiteRequestContext, options: SendOptions): CancelSignal | undefined {
	const cancel = cancelSignalOf(ctx);
	return cancel && options.signal
		? AbortSignal.any([cancel, options.signal])
		: (cancel ?? options.signal);
}

/**
 * The token mint of a Managed Tenant through this sender: the admin token as the route's proof, and
 * no retries of its own (the item's request retries a failed mint with its own backoff). A mint is
 * no write to a site: a dry run mints too.
 */
function mintThroughSender(ctx: SiteRequestContext, itemIndex: number): MintSend {
	return async ({ adminBaseUrl, adminToken, path, body, timeout, abortSignal }) => {
		const route: Route = {
			baseUrl: adminBaseUrl,
			auth: bearerAuth(ctx, adminToken),
			timeout,
			maxRetries: 0,
			dryRun: false,
		};
		// Every answer comes back: the mint reads a refusal (its status) and a redirect itself.
		const options = { itemIndex, acceptStatus: () => true };
		return await sendOnRoute(ctx, route, { method: 'POST', path, body }, options, abortSignal);
	};
}

/** The route of an item's target: its base URL, its credential's strategy (auth.ts), its limits. */
function routeOf(
	ctx: SiteRequestContext,
	target: RequestTarget,
	itemIndex: number,
	signal: CancelSignal | undefined,
): Route {
	const { baseUrl, timeout, maxRetries, dryRun } = target;
	const auth = targetAuth(ctx, target, signal, mintThroughSender(ctx, itemIndex));
	return { baseUrl, auth, timeout, maxRetries, dryRun };
}

/**
 * Sends one request of an item to its target, with retries, and returns the full response (status,
 * headers, body). Throws NodeApiError for every non-2xx answer that is not retried (or after the
 * last retry).
 */
export async function siteRequestFull(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<SiteResponse> {
	const signal = signalOf(this, options);
	const route = routeOf(this, options.target, options.itemIndex, signal);
	return await sendOnRoute(this, route, request, options, signal);
}

/** Sends one request (see siteRequestFull) and returns the parsed response body. */
export async function siteRequest(
	this: SiteRequestContext,
	request: SiteRequest,
	options: SiteRequestOptions,
): Promise<unknown> {
	return (await siteRequestFull.call(this, request, options)).body;
}

/** A request that is not a read, in a dry run: refused before anything is sent. */
function refuseInDryRun(node: INode, request: SiteRequest, itemIndex: number) {
	if (READS.has(request.method.toUpperCase())) return;
	throw new NodeOperationError(
		node,
		`Dry Run: ${request.method} ${request.path} was not sent, a dry run sends only reads`,
		{ itemIndex },
	);
}

/** The request's headers, with one Idempotency-Key for every attempt of a write. */
function requestHeaders(request: SiteRequest, options: SendOptions): IDataObject {
	const headers: IDataObject = { ...(request.headers ?? {}) };
	if (
		METHODS_WITH_IDEMPOTENCY_KEY.includes(request.method) &&
		!hasHeader(headers, 'idempotency-key')
	) {
		headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
	}
	return headers;
}

/** The body of one attempt: a fresh one where the request makes them. */
async function attemptBody(request: SiteRequest, headers: IDataObject): Promise<RequestBody> {
	const body = request.createBody ? await request.createBody() : request.body;
	if (isPlainObject(body) && Object.keys(body).length === 0 && request.method !== 'GET') {
		// n8n's HTTP layer silently drops an empty object body; send the JSON text `{}` instead.
		if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
		return '{}';
	}
	return body;
}

/** n8n's options for one attempt. */
function attemptOptions(
	request: SiteRequest,
	url: string,
	headers: IDataObject,
	body: RequestBody,
	{ timeout }: Route,
	signal: CancelSignal | undefined,
	options: SendOptions,
): IHttpRequestOptions {
	const requestOptions: IHttpRequestOptions = {
		method: request.method,
		url,
		headers: { ...headers },
		json: request.json ?? true,
		timeout,
		returnFullResponse: true,
		// Every answer comes back whole, its headers included: n8n 1.x drops the headers of an
		// answer it throws (Retry-After, Location). No request here relies on n8n's refresh after a
		// 401: the managed token is renewed by the sender.
		ignoreHttpStatusErrors: true,
		// The service never redirects: following one would resend the token and the body to the host
		// the Location names. A 3xx becomes redirectError. (Not following also keeps n8n's client from
		// holding a copy of a streamed body for a replay.)
		disableFollowRedirect: true,
	};
	if (request.qs !== undefined) requestOptions.qs = request.qs;
	if (body !== undefined) requestOptions.body = body;
	if (signal) requestOptions.abortSignal = signal;
	if (options.maxResponseBytes !== undefined) requestOptions.encoding = 'stream';
	return requestOptions;
}

/** What one attempt got: an answer, or none (the network, or the token mint before it, failed). */
type Outcome =
	{ answer: SiteResponse } | { noAnswer: { code?: string; message: string; error: unknown } };

async function attempt(
	ctx: SiteRequestContext,
	route: Route,
	request: SiteRequest,
	requestOptions: IHttpRequestOptions,
	signal: CancelSignal | undefined,
	options: SendOptions,
): Promise<Outcome> {
	const { itemIndex } = options;
	try {
		const response = await route.auth.send(requestOptions);
		let body: unknown = response.body;
		if (options.maxResponseBytes !== undefined && isReadableBody(body))
			body = parseAnswer(await readCapped(body, options.maxResponseBytes, signal));
		return {
			answer: { statusCode: response.statusCode, headers: response.headers ?? {}, body },
		};
	} catch (error) {
		if (signal?.aborted) throw cancelledError(ctx, itemIndex);
		if (error instanceof AnswerTooLargeError)
			throw answerTooLargeError(ctx.getNode(), request, error.maxBytes, itemIndex);
		const failure = readThrownRequestError(error);
		if (failure.status === undefined)
			return { noAnswer: { code: failure.code, message: failure.message, error } };
		return {
			answer: { statusCode: failure.status, headers: failure.headers ?? {}, body: failure.body },
		};
	}
}

/** The error of a request that got no answer, for the user or, as a tool, for a model. */
function noAnswerError(
	node: INode,
	{ code, message, error }: { code?: string; message: string; error: unknown },
	itemIndex: number,
	attempts: number,
	baseUrl: string | undefined,
): NodeApiError {
	const transient = isRetryableNetworkError(code, message);
	// The client's message names the address it could not reach: not for a model.
	const shown =
		baseUrl === undefined ? `The site could not be reached (${code ?? 'no answer'})` : message;
	// A token mint the Admin API refused: its status, like any answer's.
	const mintStatus = mintStatusOf(error);
	if (mintStatus !== undefined) return mintFailedError(node, shown, itemIndex, mintStatus);
	return transient
		? networkError(node, code, shown, itemIndex, attempts, { baseUrl })
		: requestFailedError(node, shown, itemIndex);
}

/** The error of an answer that is not a success and is not retried. */
function answerError(
	node: INode,
	url: string,
	{ statusCode, headers, body }: SiteResponse,
	itemIndex: number,
	errorContext: { baseUrl: string | undefined; fieldLabels?: FieldLabels },
): NodeApiError {
	if (!isRedirectStatus(statusCode))
		return serverError(node, statusCode, body, itemIndex, errorContext);
	return errorContext.baseUrl === undefined
		? requestFailedError(
				node,
				`The site answered with a redirect (HTTP ${statusCode}); it was not followed.`,
				itemIndex,
			)
		: redirectError(node, url, statusCode, headers, itemIndex);
}

/** How long to wait before the next attempt after this answer, or undefined: no retry. */
function retryDelay(answer: SiteResponse, attemptNo: number): number | undefined {
	if (!isRetryableStatus(answer.statusCode)) return undefined;
	const retryAfter = parseRetryAfter(headerValue(answer.headers, 'retry-after'));
	if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) return undefined;
	return retryAfter ?? backoffDelay(attemptNo);
}

/**
 * The sender: the one loop every request of the nodes goes through. A dry run sends reads only;
 * 429, 5xx and network failures are retried (backoff, Retry-After); a refused managed token is
 * replaced once; a redirect is never followed; errors are built afresh, without the token.
 */
export async function sendOnRoute(
	ctx: SiteRequestContext,
	route: Route,
	request: SiteRequest,
	options: SendOptions,
	signal: CancelSignal | undefined = signalOf(ctx, options),
): Promise<SiteResponse> {
	const { itemIndex } = options;
	const node = ctx.getNode();
	if (route.dryRun) refuseInDryRun(node, request, itemIndex);
	const url = joinUrl(route.baseUrl, request.path);
	// An agent's tool answers its model: an error there names no address of the service.
	const errorContext = {
		baseUrl: isToolForm(node) ? undefined : route.baseUrl,
		fieldLabels: options.fieldLabels,
	};
	const headers = requestHeaders(request, options);
	let attemptNo = 0;
	for (;;) {
		if (signal?.aborted) throw cancelledError(ctx, itemIndex);
		const body = await attemptBody(request, headers);
		// A stream given directly can be sent once only; everything else can be sent again.
		const resendable = request.createBody !== undefined || !isStream(body);
		const canRetry = attemptNo < route.maxRetries && resendable;
		const requestOptions = attemptOptions(request, url, headers, body, route, signal, options);
		const outcome = await attempt(ctx, route, request, requestOptions, signal, options);
		if ('noAnswer' in outcome) {
			const { code, message } = outcome.noAnswer;
			if (!(canRetry && isRetryableNetworkError(code, message)))
				throw noAnswerError(node, outcome.noAnswer, itemIndex, attemptNo + 1, errorContext.baseUrl);
			await wait(ctx, backoffDelay(attemptNo++), signal, itemIndex);
			continue;
		}
		const { answer } = outcome;
		// A managed token the service refused (expired, revoked): once more with a fresh one.
		if (answer.statusCode === 401 && resendable && (await route.auth.renew())) continue;
		const status = answer.statusCode;
		if ((status >= 200 && status < 300) || options.acceptStatus?.(status)) return answer;
		const delay = canRetry ? retryDelay(answer, attemptNo) : undefined;
		if (delay === undefined) throw answerError(node, url, answer, itemIndex, errorContext);
		await wait(ctx, delay, signal, itemIndex);
		attemptNo++;
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
export async function siteRequestPages(
	this: SiteRequestContext,
	path: string,
	qs: IDataObject,
	{ returnAll, limit = 50 }: AllItemsOptions,
	options: SiteRequestOptions,
): Promise<IDataObject[]> {
	const wanted = returnAll ? Infinity : Math.max(0, limit);
	const perPage = returnAll ? PAGE_SIZE : Math.min(PAGE_SIZE, Math.max(1, wanted));
	const items: IDataObject[] = [];
	if (wanted === 0) return items;

	// One route (and with a Managed Tenant, one token) for every page of the walk.
	const signal = signalOf(this, options);
	const route = routeOf(this, options.target, options.itemIndex, signal);
	const concurrency = 'getInputData' in this ? readConcurrency(this) : 1;
	const fetchPage = async (page: number) =>
		(
			await sendOnRoute(
				this,
				route,
				{ method: 'GET', path, qs: { ...qs, page, per_page: perPage } },
				options,
				signal,
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
