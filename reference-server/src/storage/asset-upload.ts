import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import { ApiError, validationFailed } from '../errors/api-error';
import type { AssetRepository, AssetRow } from '../db/assets';
import type { AssetStore } from './asset-store';
import { malformedMultipart, STALL_MS, stallGuard } from './multipart-stall';

const MIME_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/** The URL's last segment: the client's name reduced to safe characters. Never used as a path on disk. */
export function urlSafeFileName(name: string): string {
	const base = name.split(/[\\/]/).pop() ?? '';
	const safe = base
		.normalize('NFKD')
		.replace(/[^A-Za-z0-9._-]+/g, '-')
		.replace(/^[.-]+/, '')
		.slice(0, 120);
	return safe === '' ? 'file' : safe;
}

/**
 * The answer for an error while reading the upload: the limits' 413s and our own errors as they are;
 * a parser error (no boundary, a part cut short, malformed part headers) is the client's 400. An
 * error of the file system (it has a syscall) stays a 500.
 */
function uploadError(error: unknown): unknown {
	if (error instanceof ApiError) return error;
	const e = error as { code?: string; statusCode?: number; syscall?: string };
	if (e?.syscall !== undefined) return error;
	if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return error;
	return validationFailed([{ field: 'body', problem: 'is not a valid multipart/form-data body' }]);
}

/** The multipart request of one upload, as the route hands it over. */
export interface UploadRequest {
	tenantPk: number;
	parts: AsyncIterable<Multipart>;
	/** The raw request: its end arms the stall guard. */
	raw: IncomingMessage;
}

interface WrittenFile {
	id: string;
	size: number;
	fileName: string;
	mimeType: string;
}

/**
 * Takes one asset upload (a part `file`, an optional text part `name`) from a multipart body to a file
 * on disk and a row in the database. Nothing is kept of an upload that fails.
 */
export class AssetUploads {
	constructor(
		private readonly files: AssetStore,
		private readonly rows: AssetRepository,
		private readonly maxUploadMb: number,
	) {}

	async receive({ tenantPk, parts, raw }: UploadRequest): Promise<AssetRow> {
		const { written, displayName } = await this.writeParts(tenantPk, parts, raw);
		const name = displayName ?? written.fileName;
		try {
			return this.rows.create({
				id: written.id,
				tenant_pk: tenantPk,
				name,
				file_name: urlSafeFileName(name),
				mime_type: written.mimeType,
				size: written.size,
			});
		} catch (error) {
			await this.files.remove(tenantPk, written.id);
			throw error;
		}
	}

	/** Reads every part; writes the first part named file; fails with 413 over the limit, 400 without a file. */
	private async writeParts(
		tenantPk: number,
		parts: AsyncIterable<Multipart>,
		raw: IncomingMessage,
	) {
		const { files } = this;
		let written: WrittenFile | undefined;
		let displayName: string | undefined;
		let tooLarge = false;
		let currentFile: Readable | undefined;
		let lastProgress = Date.now();
		let busy = false;
		const progress = () => {
			lastProgress = Date.now();
		};

		const readParts = async () => {
			// Parts arrive in any order; every part is consumed so the client gets its answer cleanly.
			for await (const part of parts) {
				progress();
				if (part.type === 'field') {
					if (
						part.fieldname === 'name' &&
						typeof part.value === 'string' &&
						part.value.trim() !== ''
					)
						displayName = part.value.trim().slice(0, 255);
					continue;
				}
				if (part.fieldname !== 'file' || written || tooLarge) {
					part.file.resume();
					continue;
				}
				const id = randomBytes(16).toString('hex');
				currentFile = part.file;
				const size = await files.write(tenantPk, id, part.file, progress);
				currentFile = undefined;
				progress();
				if (part.file.truncated) {
					// The stream stopped at the limit; what was written is incomplete.
					tooLarge = true;
					busy = true;
					await files.remove(tenantPk, id);
					busy = false;
					continue;
				}
				const mimeType = MIME_TYPE.test(part.mimetype ?? '')
					? part.mimetype.toLowerCase()
					: 'application/octet-stream';
				written = { id, size, fileName: part.filename || 'file', mimeType };
			}
		};

		const reading = readParts();
		const guard = stallGuard(
			raw,
			(quietMs) => {
				if (busy || Math.min(quietMs, Date.now() - lastProgress) < STALL_MS) return false;
				// A file whose end the parser has seen is only being flushed to disk.
				const fileEnded = (
					currentFile as unknown as { _readableState?: { ended?: boolean } } | undefined
				)?._readableState?.ended;
				return fileEnded !== true;
			},
			() => currentFile?.destroy(malformedMultipart()),
		);
		try {
			await Promise.race([reading, guard.promise]);
		} catch (error) {
			// Whatever the parser still does in the background, nothing of this upload is kept.
			const discard = () => (written ? files.remove(tenantPk, written.id) : undefined);
			reading.then(discard, discard);
			throw uploadError(error);
		} finally {
			guard.cancel();
		}

		if (tooLarge) {
			throw new ApiError(
				413,
				'payload_too_large',
				`The upload is larger than the limit of ${this.maxUploadMb} MB.`,
			);
		}
		if (!written)
			throw validationFailed([
				{ field: 'file', problem: 'is required (a multipart file part named file)' },
			]);
		return { written, displayName };
	}
}
