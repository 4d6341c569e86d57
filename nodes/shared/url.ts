/**
 * `value` without the slashes it ends with. A loop, not `/\/+$/`: that pattern backtracks over
 * every run of slashes, quadratic in a long one (test/reliability/linear-patterns.test.ts).
 */
export function withoutTrailingSlashes(value: string): string {
	let end = value.length;
	while (end > 0 && value.charCodeAt(end - 1) === 0x2f) end--;
	return value.slice(0, end);
}

/** Joins a configured base URL and an API path without doubling or losing slashes. */
export function joinUrl(baseUrl: unknown, path: string): string {
	const base = withoutTrailingSlashes(String(baseUrl ?? '').trim());
	const tail = String(path ?? '')
		.trim()
		.replace(/^\/+/, '');
	return tail ? `${base}/${tail}` : base;
}

/** An address without its user:password part (never shown, never a key). */
export function withoutUserInfo(url: string): string {
	return url.replace(/\/\/[^/@]*@/, '//');
}

/** `url` read as an address, relative to `base` when it is one; undefined when it is none. */
function parsed(url: string, base?: string): URL | undefined {
	try {
		return new URL(url, base || undefined);
	} catch {
		// Not an address: it matches no base URL.
		return undefined;
	}
}

/**
 * Whether a request for `url` (relative to `requestBase`, n8n's `baseURL`) goes to `baseUrl` or a
 * path below it: same scheme, host and port, and the base URL's path as a whole prefix.
 */
export function onBaseUrl(url: unknown, requestBase: unknown, baseUrl: string): boolean {
	const base = parsed(baseUrl);
	const target =
		typeof url === 'string' || url instanceof URL
			? parsed(String(url), typeof requestBase === 'string' ? requestBase : undefined)
			: undefined;
	if (!base || !target || !/^https?:$/.test(base.protocol) || target.origin !== base.origin)
		return false;
	const basePath = withoutTrailingSlashes(base.pathname);
	return target.pathname === basePath || target.pathname.startsWith(`${basePath}/`);
}
