import { randomBytes } from 'node:crypto';
import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import {
	notFound,
	payloadTooLarge,
	quotaExceeded,
	validationFailed,
	ApiError,
} from '../errors/api-error';
import type { AssetRepository, AssetRow } from '../db/assets';
import type { AssetStore } from './asset-store';

const MIME_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/** Control characters and the invisible bidirectional marks and overrides that make a name read other than it is. */
const UNSAFE_NAME_CHARACTERS =
	/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;
/** Characters of a stored display name, as the page name's bound. */
export const DISPLAY_NAME_MAX = 255;

/**
 * A name as stored and echoed (the `name` part or the client's file name): without control and
 * bidirectional-control characters, trimmed, at most DISPLAY_NAME_MAX characters (never half a
 * surrogate pair); undefined when nothing is left.
 */
export function cleanDisplayName(text: string): string | undefined {
	const cleaned = [...text.replace(UNSAFE_NAME_CHARACTERS, ' ').trim()]
		.slice(0, DISPLAY_NAME_MAX)
		.join('')
		.trim();
	return cleaned === '' ? undefined : cleaned;
}

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

interface WrittenFile {
	id: string;
	size: number;
	fileName: string;
	mimeType: string;
}

export interface UploadLimits {
	maxUploadMb: number;
	/** Bytes all of a tenant's uploads may take; 0 for no quota. */
	quotaMb: number;
	/** False once the tenant is deleted (an upload may still be streaming then). */
	tenantExists: (tenantPk: number) => boolean;
}

/** The byte limit of one upload's file, and whether the tenant's quota (not the upload limit) sets it. */
interface FileSizeLimit {
	bytes: number;
	byQuota: boolean;
}

const MB = 1024 * 1024;

/**
 * Takes one asset upload (a part `file`, an optional text part `name`) from a multipart body to a file
 * on disk and a row in the database. Nothing is kept of an upload that fails.
 */
export class AssetUploads {
	private readonly uploadBytes: number;
	private readonly quotaBytes: number;

	constructor(
		private readonly files: AssetStore,
		private readonly rows: AssetRepository,
		private readonly limits: UploadLimits,
	) {
		this.uploadBytes = Math.max(1, Math.floor(limits.maxUploadMb * MB));
		this.quotaBytes = Math.floor(limits.quotaMb * MB);
	}

	/** The upload limit, or what is left of the tenant's quota when that is less. */
	private fileSizeLimit(tenantPk: number): FileSizeLimit {
		const left = this.quotaBytes - this.rows.usedBytes(tenantPk);
		// busboy needs a positive limit: with nothing left, a 1-byte file is still refused after writing.
		if (this.quotaBytes > 0 && left < this.uploadBytes)
			return { bytes: Math.max(1, left), byQuota: true };
		return { bytes: this.uploadBytes, byQuota: false };
	}

	private quotaExceeded(): ApiError {
		return quotaExceeded(
			`The tenant's uploads would exceed its quota of ${this.limits.quotaMb} MB (server option --upload-quota-mb).`,
		);
	}

	/** The upload of a multipart request, stored for the tenant. */
	async receive(tenantPk: number, request: FastifyRequest): Promise<AssetRow> {
		try {
			return await this.store(tenantPk, request);
		} catch (error) {
			// The tenant was deleted meanwhile (its rows and files went with it): that is the answer.
			if (this.limits.tenantExists(tenantPk)) throw error;
			throw notFound('The tenant was deleted while the upload was in progress.');
		}
	}

	private async store(tenantPk: number, request: FastifyRequest): Promise<AssetRow> {
		const limit = this.fileSizeLimit(tenantPk);
		const parts = request.parts({ limits: { fileSize: limit.bytes } }) as AsyncIterable<Multipart>;
		const { written, displayName } = await this.writeParts(tenantPk, limit, parts);
		const name = displayName ?? cleanDisplayName(written.fileName) ?? 'file';
		try {
			// Checked again now, in the same turn as the insert: uploads running side by side each saw the
			// quota before the other's row existed.
			if (this.quotaBytes > 0 && this.rows.usedBytes(tenantPk) + written.size > this.quotaBytes)
				throw this.quotaExceeded();
			// A tenant deleted meanwhile fails the insert (its key is gone).
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
		limit: FileSizeLimit,
		parts: AsyncIterable<Multipart>,
	) {
		const { files } = this;
		let written: WrittenFile | undefined;
		let displayName: string | undefined;
		let tooLarge = false;
		try {
			// Parts arrive in any order; every part is consumed so the client gets its answer cleanly.
			for await (const part of parts) {
				if (part.type === 'field') {
					if (part.fieldname === 'name' && typeof part.value === 'string')
						displayName = cleanDisplayName(part.value) ?? displayName;
					continue;
				}
				if (part.fieldname !== 'file' || written || tooLarge) {
					part.file.resume();
					continue;
				}
				const id = randomBytes(16).toString('hex');
				const size = await files.write(tenantPk, id, part.file);
				if (part.file.truncated) {
					// The stream stopped at the limit; what was written is incomplete.
					tooLarge = true;
					await files.remove(tenantPk, id);
					continue;
				}
				const mimeType = MIME_TYPE.test(part.mimetype ?? '')
					? part.mimetype.toLowerCase()
					: 'application/octet-stream';
				written = { id, size, fileName: part.filename || 'file', mimeType };
			}
		} catch (error) {
			// Nothing of a failed upload is kept.
			if (written) await files.remove(tenantPk, written.id);
			throw uploadError(error);
		}

		if (tooLarge) {
			if (limit.byQuota) throw this.quotaExceeded();
			throw payloadTooLarge(
				`The upload is larger than the limit of ${this.limits.maxUploadMb} MB.`,
			);
		}
		if (!written)
			throw validationFailed([
				{ field: 'file', problem: 'is required (a multipart file part named file)' },
			]);
		return { written, displayName };
	}
}
