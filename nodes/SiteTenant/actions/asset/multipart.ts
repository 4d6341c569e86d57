/**
 * A `multipart/form-data` body built by hand (no `form-data` package): the parts before the file
 * and the file's part header form the preamble, the closing boundary is the epilogue, and the file
 * bytes go in between, either as one Buffer or streamed.
 */
import { OperationalError } from 'n8n-workflow';
import { randomBytes } from 'crypto';

interface MultipartTextField {
	name: string;
	value: string;
}

interface MultipartFile {
	/** Form field name of the file part, e.g. `file`. */
	fieldName: string;
	fileName: string;
	contentType: string;
}

export interface MultipartEnvelope {
	boundary: string;
	/** The value for the request's `Content-Type` header. */
	contentType: string;
	/** Text parts, then the file part's headers (up to and including the blank line). */
	preamble: Buffer;
	/** CRLF after the file bytes plus the closing boundary. */
	epilogue: Buffer;
}

const CRLF = '\r\n';

/** 16 random bytes in hex after a fixed prefix: 70 characters at most is the RFC 2046 limit. */
function createBoundary(): string {
	return `----n8nSiteFormBoundary${randomBytes(16).toString('hex')}`;
}

/**
 * Escapes a name or filename for a quoted `Content-Disposition` parameter the way browsers do
 * (WHATWG HTML, multipart/form-data encoding): `"` becomes `%22`, CR `%0D`, LF `%0A`.
 */
export function escapeQuotedParameter(value: string): string {
	return value.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/**
 * `type/subtype` with optional parameters (`text/plain; charset=utf-8`), no CR/LF. Split at `;`
 * rather than one pattern with a repeated parameter group: spaces that either of two neighbouring
 * groups may take make such a pattern exponential on a long bad value.
 */
export function isValidMimeType(value: string): boolean {
	const [essence, ...parameters] = value.split(';');
	return (
		/^[A-Za-z0-9][\w!#$&^.+-]*\/[\w!#$&^.+-]+[ \t]*$/.test(essence) &&
		// Spaces may only come before a `;`.
		(parameters.length > 0 || !/[ \t]$/.test(essence)) &&
		parameters.every((parameter) => parameter !== '' && !/[\r\n]/.test(parameter))
	);
}

/** A header value must not carry CR/LF (header injection); MIME types never legitimately do. */
function sanitizeHeaderValue(value: string): string {
	return value.replace(/[\r\n]+/g, ' ').trim();
}

function textPart(boundary: string, field: MultipartTextField): string {
	return (
		`--${boundary}${CRLF}` +
		`Content-Disposition: form-data; name="${escapeQuotedParameter(field.name)}"${CRLF}${CRLF}` +
		`${field.value}${CRLF}`
	);
}

function fileHeader(boundary: string, file: MultipartFile): string {
	const contentType = sanitizeHeaderValue(file.contentType) || 'application/octet-stream';
	return (
		`--${boundary}${CRLF}` +
		`Content-Disposition: form-data; name="${escapeQuotedParameter(file.fieldName)}"; ` +
		`filename="${escapeQuotedParameter(file.fileName)}"${CRLF}` +
		`Content-Type: ${contentType}${CRLF}${CRLF}`
	);
}

/** Builds everything around the file bytes. Text fields come first so a server sees them early. */
export function buildMultipartEnvelope(
	fields: MultipartTextField[],
	file: MultipartFile,
	boundary: string = createBoundary(),
): MultipartEnvelope {
	const head =
		fields.map((field) => textPart(boundary, field)).join('') + fileHeader(boundary, file);
	return {
		boundary,
		contentType: `multipart/form-data; boundary=${boundary}`,
		preamble: Buffer.from(head, 'utf8'),
		epilogue: Buffer.from(`${CRLF}--${boundary}--${CRLF}`, 'utf8'),
	};
}

/** The whole body in memory: for binaries n8n already holds as a Buffer. */
export function multipartBuffer(envelope: MultipartEnvelope, data: Buffer): Buffer {
	return Buffer.concat([envelope.preamble, data, envelope.epilogue]);
}

/** Byte length of the body around a file of `fileSize` bytes, for `Content-Length`. */
export function multipartLength(envelope: MultipartEnvelope, fileSize: number): number {
	return envelope.preamble.length + fileSize + envelope.epilogue.length;
}

/**
 * Yields preamble, the file's chunks, epilogue. When `expectedSize` is given, a file that turns out
 * longer or shorter fails the stream instead of sending a body that contradicts `Content-Length`.
 */
export async function* multipartChunks(
	envelope: MultipartEnvelope,
	file: AsyncIterable<unknown>,
	expectedSize?: number,
): AsyncGenerator<Buffer> {
	yield envelope.preamble;
	let sent = 0;
	for await (const chunk of file) {
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
		sent += buffer.length;
		if (expectedSize !== undefined && sent > expectedSize) {
			throw new OperationalError(`File is larger than its recorded size of ${expectedSize} bytes`);
		}
		yield buffer;
	}
	if (expectedSize !== undefined && sent !== expectedSize) {
		throw new OperationalError(`File has ${sent} bytes, its recorded size is ${expectedSize}`);
	}
	yield envelope.epilogue;
}

/** What `Readable.from` looks like, reached through a stream's constructor (no `stream` import). */
type ReadableFrom<T> = (iterable: AsyncIterable<Buffer>, options?: { objectMode?: boolean }) => T;

/**
 * Wraps an async iterable of Buffers into a readable stream of the same kind as `like` (a stream
 * n8n gave us, e.g. from `getBinaryStream`): its constructor inherits the static `Readable.from`,
 * so no `stream` import is needed. Returns undefined if no `from` is found on the prototype chain.
 */
export function readableLike<T extends object>(
	like: T,
	chunks: AsyncIterable<Buffer>,
): T | undefined {
	let ctor: unknown = (like as { constructor?: unknown }).constructor;
	while (typeof ctor === 'function') {
		const from = (ctor as unknown as { from?: unknown }).from;
		if (typeof from === 'function') {
			return (from as ReadableFrom<T>).call(ctor, chunks, { objectMode: false });
		}
		ctor = Object.getPrototypeOf(ctor);
	}
	return undefined;
}
