/**
 * The service never redirects, so no request of this package follows a redirect: n8n's HTTP client
 * would resend the request, with the `Authorization` header and the body, to whatever host the
 * `Location` names (n8n sends credentials on cross-origin redirects by default). Every request sets
 * `disableFollowRedirect`, and a 3xx answer becomes an error that names both addresses, so the user
 * can see where the base URL points and decide whether to trust the other address.
 */
import type { IDataObject } from 'n8n-workflow';

import { headerValue } from './json';

/** Longest address quoted in a message: a hostile Location must not flood the error. */
const MAX_SHOWN_URL = 300;

/** True for an answer that asks the client to go elsewhere (any 3xx but 304 Not Modified). */
export function isRedirectStatus(status: number): boolean {
	return status >= 300 && status < 400 && status !== 304;
}

/**
 * An address fit for an error message: resolved against `base` when relative, without user name,
 * password, query or fragment (which may hold secrets), control characters removed, and cut short.
 */
export function shownUrl(address: unknown, base?: string): string {
	// eslint-disable-next-line no-control-regex -- control characters are what it removes
	const text = String(address ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
	let shown = text;
	try {
		const url = new URL(text, base);
		url.username = '';
		url.password = '';
		url.search = '';
		url.hash = '';
		shown = url.href;
	} catch {
		// Not a URL: quote what came, cleaned and cut.
	}
	return shown.length > MAX_SHOWN_URL ? `${shown.slice(0, MAX_SHOWN_URL)}…` : shown;
}

/** Where a redirect answer points, for the message. */
function redirectTarget(requestUrl: string, headers: IDataObject | undefined): string {
	// n8n 1.x does not pass a thrown answer's headers on: the Location is there but unknown here.
	if (headers === undefined) return 'another address (this n8n version does not pass it on)';
	const location = headerValue(headers, 'location');
	if (location === undefined || location === '') return 'no address (no Location header)';
	return shownUrl(Array.isArray(location) ? location[0] : location, requestUrl);
}

/**
 * The message for a redirect answer to a request sent to `requestUrl`; `headers` undefined when
 * n8n did not pass the answer's headers on.
 */
export function redirectMessage(
	requestUrl: string,
	status: number,
	headers: IDataObject | undefined,
): string {
	const target = redirectTarget(requestUrl, headers);
	return `${shownUrl(requestUrl)} answered with a redirect (HTTP ${status}) to ${target}. The Site Management Service never redirects, so the request was not sent again and the token did not go there: check the base URL in the credential (it may point at a proxy or an old address).`;
}
