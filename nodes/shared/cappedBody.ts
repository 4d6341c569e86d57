/**
 * An answer read with a size cap: n8n's HTTP helper has no limit of its own, so a request that sets
 * SiteRequestOptions.maxResponseBytes asks n8n for the body as a stream and reads at most that many
 * bytes of it. A larger answer is dropped unread instead of filling the process's memory.
 */

/** Thrown when an answer is longer than its cap; the stream is destroyed. */
export class AnswerTooLargeError extends Error {
	constructor(readonly maxBytes: number) {
		super(`The answer is larger than ${maxBytes} bytes`);
		this.name = 'AnswerTooLargeError';
	}
}

interface ReadableBody extends AsyncIterable<unknown> {
	destroy(error?: Error): void;
}

export function isReadableBody(value: unknown): value is ReadableBody {
	return (
		typeof value === 'object' &&
		value !== null &&
		!Buffer.isBuffer(value) &&
		typeof (value as Partial<ReadableBody>).destroy === 'function' &&
		typeof (value as Partial<ReadableBody>)[Symbol.asyncIterator] === 'function'
	);
}

/** The whole body, or AnswerTooLargeError once more than `maxBytes` arrived; ends when `signal` aborts. */
export async function readCapped(
	body: ReadableBody,
	maxBytes: number,
	signal: AbortSignal | undefined,
): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	const onAbort = () => body.destroy(new Error('The request was aborted'));
	signal?.addEventListener('abort', onAbort, { once: true });
	try {
		if (signal?.aborted) onAbort();
		for await (const chunk of body) {
			const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
			size += bytes.length;
			if (size > maxBytes) {
				body.destroy();
				throw new AnswerTooLargeError(maxBytes);
			}
			chunks.push(bytes);
		}
	} finally {
		signal?.removeEventListener('abort', onAbort);
	}
	return Buffer.concat(chunks);
}

/** The body as n8n parses a JSON answer: the JSON value, the text when it is not JSON, else undefined. */
export function parseAnswer(bytes: Buffer): unknown {
	const text = bytes.toString('utf8');
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/** "64 MB", "512 KB": a cap as people read it. */
export function formatBytes(bytes: number): string {
	const MB = 1024 * 1024;
	if (bytes >= MB && bytes % MB === 0) return `${bytes / MB} MB`;
	if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
	return `${bytes} bytes`;
}
