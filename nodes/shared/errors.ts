/**
 * Turns what the service answered (or the network failure) into a NodeApiError that shows the
 * server's own message and field details, and carries nothing that could hold a token: the error is
 * built from a fresh object, never from the request options or the HTTP client's error (whose config
 * holds the Authorization header).
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { formatBytes } from './cappedBody';
import { isRecord } from './json';
import { redirectMessage } from './redirect';
import { withoutSecrets } from './secrets';
import { withoutUserInfo } from './url';

interface ServerErrorBody {
	error?: string;
	message?: string;
	details?: unknown;
}

/**
 * What the transport threw, as the n8n error it is (the transport throws n8n's errors only; anything
 * else is wrapped for the item), and the HTTP status of the service's answer to the request (NaN
 * when there was none, or when the token mint before it failed: its status is the Admin API's, and a
 * 404 there says the tenant is missing, not that the endpoint is).
 */
export function requestFailure(
	node: INode,
	error: unknown,
	itemIndex: number,
): { failure: NodeApiError | NodeOperationError; status: number } {
	if (error instanceof NodeApiError)
		return { failure: error, status: isMintFailure(error) ? NaN : Number(error.httpCode) };
	return { failure: new NodeOperationError(node, error as Error, { itemIndex }), status: NaN };
}

/**
 * The answer of a service that does not have the endpoint (404 or 405): an extension of the
 * reference server the caller falls back from, not an error.
 */
export const isMissingEndpoint = (status: number): boolean => status === 404 || status === 405;

/** Marks the error of a token mint the Admin API refused (mintFailedError). */
const MINT_FAILURE = 'token_mint_failed';

const isMintFailure = (error: NodeApiError) => error.context.error === MINT_FAILURE;

/** A token mint refused because the Admin API has no such tenant (404): the tenant is gone. */
export const isMissingTenant = (error: unknown): boolean =>
	error instanceof NodeApiError && isMintFailure(error) && error.httpCode === '404';

/**
 * A token mint the Admin API refused: its message, and its status as `httpCode` (a workflow branches
 * on it), marked so that requestFailure does not take it for the site's answer.
 */
export function mintFailedError(
	node: INode,
	message: string,
	itemIndex: number,
	status: number,
): NodeApiError {
	const error = requestFailedError(node, message, itemIndex, status);
	error.context.error = MINT_FAILURE;
	return error;
}

/** The service's field names (`id`, `old_id`) as the node's editor shows them ("Tenant ID"). */
export type FieldLabels = Record<string, string>;

/**
 * Renders `details` (array of `{field, problem}` or an object of field to problem) as `field: problem`
 * lines, each field named by its label where `labels` has one.
 */
export function formatDetails(details: unknown, labels: FieldLabels = {}): string | undefined {
	if (details === undefined || details === null) return undefined;
	const label = (field: unknown) =>
		Object.prototype.hasOwnProperty.call(labels, String(field))
			? labels[String(field)]
			: String(field);
	if (Array.isArray(details)) {
		const lines = details.map((entry) => {
			if (isRecord(entry)) {
				const field = entry.field ?? entry.path ?? entry.name;
				const problem = entry.problem ?? entry.message ?? entry.error;
				if (field !== undefined && problem !== undefined)
					return `${label(field)}: ${String(problem)}`;
				return JSON.stringify(entry);
			}
			return String(entry);
		});
		return lines.length ? lines.join('\n') : undefined;
	}
	if (isRecord(details)) {
		const lines = Object.entries(details).map(
			([field, problem]) =>
				`${label(field)}: ${typeof problem === 'string' ? problem : JSON.stringify(problem)}`,
		);
		return lines.length ? lines.join('\n') : undefined;
	}
	return String(details);
}

/** Reads a body that may be an object, a JSON string or a Buffer (error bodies of binary requests). */
export function readErrorBody(body: unknown): ServerErrorBody | undefined {
	let value = body;
	if (Buffer.isBuffer(value)) value = value.toString('utf8');
	if (typeof value === 'string') {
		const text = value.trim();
		try {
			value = JSON.parse(text);
		} catch {
			// A non-JSON body (a proxy's HTML page...): keep a short excerpt as the message.
			return text ? { message: text.slice(0, 500) } : undefined;
		}
	}
	return isRecord(value) ? (value as ServerErrorBody) : undefined;
}

/** What the request knew that makes an error clearer: the credential's base URL, the field labels. */
interface ErrorContext {
	baseUrl?: string;
	fieldLabels?: FieldLabels;
}

/** A base URL that ends in /api: every path the node adds then starts /api/api/. */
function endsInApi(baseUrl: string | undefined): boolean {
	return /\/api\/*$/i.test(String(baseUrl ?? '').trim());
}

/** The base URL for a message, without any user:password part. */
function shownAddress(baseUrl: string | undefined): string {
	const address = withoutUserInfo(String(baseUrl ?? '').trim());
	return address || 'the base URL';
}

const DROP_API =
	"The credential's base URL ends in /api: drop /api (give the address without it; the node adds /api/… itself).";

/** The error for an HTTP answer the server gave with a non-success status. */
export function serverError(
	node: INode,
	status: number,
	body: unknown,
	itemIndex: number,
	context: ErrorContext = {},
): NodeApiError {
	const parsed = readErrorBody(withoutSecrets(body));
	const message =
		typeof parsed?.message === 'string' && parsed.message
			? parsed.message
			: `The service answered with HTTP ${status}`;
	const details = formatDetails(parsed?.details, context.fieldLabels);
	const description =
		status === 404 && endsInApi(context.baseUrl)
			? [details, DROP_API].filter(Boolean).join('\n')
			: details;
	// Only the error body goes into the error: it is the server's promise that it echoes no token.
	const errorResponse: JsonObject = {
		httpCode: String(status),
		message,
		...(description ? { description } : {}),
		// Not under `error`: NodeApiError would show the bare code as the description.
		errorCode: parsed?.error ?? null,
		details: (parsed?.details ?? null) as JsonObject,
	};
	const error = new NodeApiError(node, errorResponse, {
		message,
		description,
		httpCode: String(status),
		itemIndex,
	});
	error.context.error = parsed?.error;
	error.context.details = parsed?.details as IDataObject;
	return error;
}

/** The error for a redirect answer: it names the address asked and the one the answer points to. */
export function redirectError(
	node: INode,
	requestUrl: string,
	status: number,
	headers: IDataObject | undefined,
	itemIndex: number,
): NodeApiError {
	const message = redirectMessage(requestUrl, status, headers);
	return new NodeApiError(
		node,
		{ message, httpCode: String(status) },
		{ message, httpCode: String(status), itemIndex },
	);
}

/** The error for a request that got no answer (connection refused, reset, timed out...). */
export function networkError(
	node: INode,
	code: string | undefined,
	message: string,
	itemIndex: number,
	attempts: number,
	context: ErrorContext = {},
): NodeApiError {
	const hints = [
		`No answer from the service after ${attempts} attempt${attempts === 1 ? '' : 's'}${code ? ` (${code})` : ''}.`,
	];
	if (endsInApi(context.baseUrl)) hints.push(DROP_API);
	// A refused connection is the commonest set-up mistake: say it in words, with the address.
	const shown =
		code === 'ECONNREFUSED'
			? `The server is not listening at ${shownAddress(context.baseUrl)}: the connection was refused. Check the credential's base URL and that the service is running.`
			: code
				? `${code}: ${message}`
				: message;
	const error = new NodeApiError(
		node,
		{ message, ...(code ? { code } : {}) },
		{ message: shown, description: hints.join(' '), itemIndex },
	);
	// n8n swaps the message of a known code for its own text ("The service refused the connection -
	// perhaps it is offline"), which names no address: put ours back.
	error.message = shown;
	return error;
}

/** The error for a failure before or around the request that is neither an answer nor a network error. */
export function requestFailedError(
	node: INode,
	message: string,
	itemIndex: number,
	status?: number,
): NodeApiError {
	if (status === undefined) return new NodeApiError(node, { message }, { message, itemIndex });
	const httpCode = String(status);
	return new NodeApiError(node, { message, httpCode }, { message, itemIndex, httpCode });
}

/** An answer longer than the request's size cap (SiteRequestOptions.maxResponseBytes), left unread. */
export function answerTooLargeError(
	node: INode,
	request: { method: string; path: string },
	maxBytes: number,
	itemIndex: number,
): NodeApiError {
	const message = `The answer to ${request.method} ${request.path} is larger than ${formatBytes(maxBytes)}; it was not read`;
	return new NodeApiError(
		node,
		{ message },
		{
			message,
			itemIndex,
			description:
				"A longer answer is dropped so that it cannot fill n8n's memory; Options > Max Answer Size (MB) sets the cap.",
		},
	);
}

/** Pieces of a thrown HTTP-helper error that are safe to read (status, body, headers, network code). */
interface ThrownRequestFailure {
	status?: number;
	body?: unknown;
	headers?: IDataObject;
	code?: string;
	message: string;
}

/**
 * n8n's httpRequestWithAuthentication throws a NodeApiError wrapping the HTTP client's error. Pull
 * out only what is needed to decide on a retry and to build our own error.
 */
export function readThrownRequestError(error: unknown): ThrownRequestFailure {
	const candidates: IDataObject[] = [];
	let current: unknown = error;
	for (let depth = 0; depth < 4 && isRecord(current); depth++) {
		candidates.push(current);
		current = (current as IDataObject).cause;
	}
	const failure: ThrownRequestFailure = {
		message: error instanceof Error ? error.message : String(error),
	};
	for (const candidate of candidates) {
		const response = candidate.response as IDataObject | undefined;
		if (failure.status === undefined && isRecord(response) && typeof response.status === 'number') {
			failure.status = response.status;
			failure.body = response.data;
			failure.headers = response.headers as IDataObject;
		}
		if (failure.code === undefined && typeof candidate.code === 'string')
			failure.code = candidate.code;
	}
	if (failure.status === undefined) {
		// The wrapper keeps the status and (when it was an object) the response body in its context.
		const wrapper = candidates[0] as
			(IDataObject & { httpCode?: string | null; context?: IDataObject }) | undefined;
		const httpCode = Number(wrapper?.httpCode);
		if (Number.isInteger(httpCode) && httpCode >= 100 && httpCode <= 599) {
			failure.status = httpCode;
			failure.body = wrapper?.context?.data;
		}
	}
	const innermost = candidates[candidates.length - 1];
	if (innermost && innermost !== error && typeof innermost.message === 'string') {
		failure.message = innermost.message;
	}
	return failure;
}
