/** Timestamps are ISO 8601 UTC with milliseconds everywhere (API output and storage), so they sort as text. */
export function nowIso(): string {
	return new Date().toISOString();
}

export function isoIn(ms: number, from: number = Date.now()): string {
	return new Date(from + ms).toISOString();
}
