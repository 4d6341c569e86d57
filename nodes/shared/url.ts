/** Joins a configured base URL and an API path without doubling or losing slashes. */
export function joinUrl(baseUrl: unknown, path: string): string {
	const base = String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const tail = String(path ?? '')
		.trim()
		.replace(/^\/+/, '');
	return tail ? `${base}/${tail}` : base;
}
