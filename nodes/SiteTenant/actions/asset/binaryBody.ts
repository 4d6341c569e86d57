/**
 * The multipart body of an asset upload, made from an item's binary property.
 *
 * Binaries n8n keeps on disk (or in another binary data store: they have an `id`) are streamed:
 * every call of `createBody` opens a fresh stream, so a retry (5xx, network failure, a 401 after the
 * managed credential minted a new token) never resends a consumed stream. Binaries n8n holds in
 * memory are sent as one Buffer, which can be resent as it is.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { MultipartEnvelope } from './multipart';
import { multipartBuffer, multipartChunks, multipartLength, readableLike } from './multipart';
import type { RequestBody } from '../../../shared/transport';

interface UploadBody {
	/** Makes the body for one attempt. */
	createBody: () => Promise<RequestBody>;
	/** Total body length in bytes, when known (always for in-memory binaries). */
	contentLength?: number;
	/** True when the file is streamed from the binary data store. */
	streamed: boolean;
	/** Closes the streams of every attempt (an attempt that failed early leaves its file open). */
	dispose: () => void;
}

interface Destroyable {
	destroy(): unknown;
}

function knownSize(value: unknown): number | undefined {
	const size = Number(value);
	return Number.isSafeInteger(size) && size >= 0 ? size : undefined;
}

async function streamedBody(
	ctx: IExecuteFunctions,
	binaryId: string,
	envelope: MultipartEnvelope,
): Promise<UploadBody> {
	const metadata = await ctx.helpers.getBinaryMetadata(binaryId);
	const fileSize = knownSize(metadata.fileSize);
	const opened: Destroyable[] = [];
	// A new attempt starts only after the previous one ended: its streams can go.
	const dispose = () => {
		for (const stream of opened.splice(0)) stream.destroy();
	};
	return {
		streamed: true,
		contentLength: fileSize === undefined ? undefined : multipartLength(envelope, fileSize),
		dispose,
		createBody: async () => {
			dispose();
			const fileStream = await ctx.helpers.getBinaryStream(binaryId);
			opened.push(fileStream);
			const body = readableLike(fileStream, multipartChunks(envelope, fileStream, fileSize));
			if (body !== undefined) {
				opened.push(body);
				return body;
			}
			// A store whose streams offer no Readable.from: fall back to reading the file whole.
			return multipartBuffer(envelope, await ctx.helpers.binaryToBuffer(fileStream));
		},
	};
}

export async function createUploadBody(
	ctx: IExecuteFunctions,
	itemIndex: number,
	binaryData: IBinaryData,
	envelope: MultipartEnvelope,
): Promise<UploadBody> {
	if (binaryData.id) return await streamedBody(ctx, binaryData.id, envelope);

	const buffer = multipartBuffer(
		envelope,
		await ctx.helpers.getBinaryDataBuffer(itemIndex, binaryData),
	);
	return {
		streamed: false,
		contentLength: buffer.length,
		createBody: async () => buffer,
		dispose: () => {},
	};
}
