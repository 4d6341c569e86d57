/**
 * A page's url as the user may give it: a site path (`/about-us`) or a full address on the site
 * (`https://example.com/about-us?x=1`), reduced to its path as written (not percent-encoded).
 * Undefined when it is neither.
 */
export const PAGE_URL_PATTERN = '^(?:https?://[^\\s/?#]+(?:[/?#]\\S*)?|/\\S*)$';
const PAGE_URL = new RegExp(PAGE_URL_PATTERN, 'i');

export function sitePath(raw: string): string | undefined {
	const value = raw.trim();
	if (!PAGE_URL.test(value)) return undefined;
	if (!/^https?:\/\//i.test(value)) return value;
	let pathname: string;
	try {
		pathname = new URL(value).pathname;
	} catch {
		return undefined;
	}
	// The URL parser percent-encodes what the user typed (/café becomes /caf%C3%A9): the page is the
	// one they named, so its path goes as they wrote it. An escape of an escape (/q%2541) stays
	// encoded: decoded once it would read as another page's url (/q%41 is /qa), and the service
	// refuses it as it is.
	let decoded: string;
	try {
		decoded = decodeURIComponent(pathname);
	} catch {
		return pathname;
	}
	return /%[0-9a-f]{2}/i.test(decoded) ? pathname : decoded;
}
