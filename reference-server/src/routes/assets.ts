import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import { ApiError, notFound, validationFailed } from '../errors/api-error';
import { tenantOf } from '../context';
import { errorResponses, tenantSecurity } from '../schemas/common';

const MIME_TYPE = /^[A-Za-z0-9][\w.+-]*\/[A-Za-z0-9][\w.+-]*$/;

/** The URL's last segment: the client's name reduced to safe characters. Never used as a path on disk. */
function urlSafeFileName(name: string): string {
	const base = name.split(/[\\/]/).pop() ?? '';
	const safe = base
		.normalize('NFKD')
		.replace(/[^A-Za-z0-9._-]+/g, '-')
		.replace(/^[.-]+/, '')
		.slice(0, 120);
	return safe === '' ? 'file' : safe;
}

/** After the last byte of the body arrived, the upload may make no progress for this long. */
const STALL_MS = 500;

const malformedMultipart = () =>
	validationFailed([{ field: 'body', problem: 'is not a complete multipart/form-data body (a part or the closing boundary is missing)' }]);

/**
 * The multipart parser waits forever for the rest of a part that a truncated body never brings (the
 * request is complete, so no request timeout applies). Once the whole body has arrived, this rejects
 * when `isStalled` (a file part that neither ends nor moves, or no part at all) holds for STALL_MS;
 * `onStall` runs first to break the wait of a file being written.
 */
function stallGuard(raw: IncomingMessage, isStalled: (sinceMs: number) => boolean, onStall: () => void) {
	let timer: NodeJS.Timeout | undefined;
	let arm: (() => void) | undefined;
	const promise = new Promise<never>((_resolve, reject) => {
		let quietSince = 0;
		const check = () => {
			if (isStalled(Date.now() - quietSince)) {
				onStall();
				reject(malformedMultipart());
				return;
			}
			timer = setTimeout(check, STALL_MS / 5);
			timer.unref();
		};
		arm = () => {
			quietSince = Date.now();
			check();
		};
		if (raw.readableEnded) arm();
		else raw.once('end', arm);
	});
	const cancel = () => {
		if (timer) clearTimeout(timer);
		if (arm) raw.off('end', arm);
	};
	return { promise, cancel };
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

const assetResponse = {
	type: 'object',
	required: ['url', 'name', 'size', 'mime_type'],
	properties: {
		url: { type: 'string', description: 'absolute URL; serves the file without a token' },
		name: { type: 'string' },
		size: { type: 'integer', description: 'bytes' },
		mime_type: { type: 'string' },
	},
} as const;

export default async function assetRoutes(app: FastifyInstance) {
	const { store, assets, config } = app.site;
	const maxUploadBytes = Math.floor(config.maxUploadMb * 1024 * 1024);

	app.post(
		'/api/asset',
		{
			onRequest: app.requireTenant,
			config: { multipart: true },
			schema: {
				summary: 'Upload a media asset (multipart: part file, optional text part name)',
				tags: ['tenant'],
				security: tenantSecurity,
				response: { 201: assetResponse, ...errorResponses },
			},
		},
		async (request, reply) => {
			if (!request.isMultipart()) {
				throw new ApiError(415, 'unsupported_media_type', 'Upload the file as multipart/form-data with a part named file.');
			}
			const tenant = tenantOf(request);
			let stored: { id: string; size: number; fileName: string; mimeType: string } | undefined;
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
				for await (const part of request.parts({ limits: { fileSize: maxUploadBytes } }) as AsyncIterable<Multipart>) {
					progress();
					if (part.type === 'field') {
						if (part.fieldname === 'name' && typeof part.value === 'string' && part.value.trim() !== '') displayName = part.value.trim().slice(0, 255);
						continue;
					}
					if (part.fieldname !== 'file' || stored || tooLarge) {
						part.file.resume();
						continue;
					}
					const id = randomBytes(16).toString('hex');
					currentFile = part.file;
					const size = await assets.write(tenant.pk, id, part.file, progress);
					currentFile = undefined;
					progress();
					if (part.file.truncated) {
						// The stream stopped at the limit; what was written is incomplete.
						tooLarge = true;
						busy = true;
						await assets.remove(tenant.pk, id);
						busy = false;
						continue;
					}
					const mimeType = MIME_TYPE.test(part.mimetype ?? '') ? part.mimetype.toLowerCase() : 'application/octet-stream';
					stored = { id, size, fileName: part.filename || 'file', mimeType };
				}
			};

			const reading = readParts();
			const guard = stallGuard(
				request.raw,
				(quietMs) => {
					if (busy || Math.min(quietMs, Date.now() - lastProgress) < STALL_MS) return false;
					// A file whose end the parser has seen is only being flushed to disk.
					const fileEnded = (currentFile as unknown as { _readableState?: { ended?: boolean } } | undefined)?._readableState?.ended;
					return fileEnded !== true;
				},
				() => currentFile?.destroy(malformedMultipart()),
			);
			try {
				await Promise.race([reading, guard.promise]);
			} catch (error) {
				// Whatever the parser still does in the background, nothing of this upload is kept.
				const discard = () => (stored ? assets.remove(tenant.pk, stored.id) : undefined);
				reading.then(discard, discard);
				throw uploadError(error);
			} finally {
				guard.cancel();
			}

			if (tooLarge) {
				throw new ApiError(413, 'payload_too_large', `The upload is larger than the limit of ${config.maxUploadMb} MB.`);
			}
			if (!stored) throw validationFailed([{ field: 'file', problem: 'is required (a multipart file part named file)' }]);

			const name = displayName ?? stored.fileName;
			try {
				store.assets.create({
					id: stored.id,
					tenant_pk: tenant.pk,
					name,
					file_name: urlSafeFileName(name),
					mime_type: stored.mimeType,
					size: stored.size,
				});
			} catch (error) {
				await assets.remove(tenant.pk, stored.id);
				throw error;
			}
			const url = `${app.site.publicUrl}/assets/${stored.id}/${urlSafeFileName(name)}`;
			return reply.code(201).send({ url, name, size: stored.size, mime_type: stored.mimeType });
		},
	);

	app.get<{ Params: { assetId: string; fileName: string } }>(
		'/assets/:assetId/:fileName',
		{
			schema: {
				summary: 'Download an asset (no token; the unguessable id is the capability)',
				description: 'The id decides; the file name segment is cosmetic. Asset URLs survive a tenant rename.',
				tags: ['public'],
				'x-extension': true,
				params: {
					type: 'object',
					required: ['assetId', 'fileName'],
					properties: { assetId: { type: 'string', maxLength: 64 }, fileName: { type: 'string', maxLength: 255 } },
				},
				response: {
					200: { description: 'the file, with its stored content type', type: 'string', contentEncoding: 'binary' },
					...errorResponses,
				},
			} as Record<string, unknown>,
		},
		async (request, reply) => {
			const { assetId } = request.params;
			const asset = /^[a-f0-9]{32}$/.test(assetId) ? store.assets.findById(assetId) : undefined;
			const file = asset ? await assets.open(asset.tenant_pk, asset.id) : undefined;
			if (!asset || !file) throw notFound('Asset not found.');
			return reply
				.header('content-type', asset.mime_type)
				.header('content-length', file.size)
				.header('x-content-type-options', 'nosniff')
				// Uploaded HTML or SVG must not run scripts in this origin when opened directly.
				.header('content-security-policy', "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox")
				.header('cache-control', 'public, max-age=3600')
				.send(file.stream);
		},
	);
}
