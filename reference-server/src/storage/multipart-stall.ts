import type { IncomingMessage } from 'node:http';
import { validationFailed } from '../errors/api-error';

/** After the last byte of the body arrived, the upload may make no progress for this long. */
export const STALL_MS = 500;

export const malformedMultipart = () =>
	validationFailed([
		{
			field: 'body',
			problem:
				'is not a complete multipart/form-data body (a part or the closing boundary is missing)',
		},
	]);

/**
 * The multipart parser waits forever for the rest of a part that a truncated body never brings (the
 * request is complete, so no request timeout applies). Once the whole body has arrived, this rejects
 * when `isStalled` (a file part that neither ends nor moves, or no part at all) holds for STALL_MS;
 * `onStall` runs first to break the wait of a file being written.
 */
export function stallGuard(
	raw: IncomingMessage,
	isStalled: (sinceMs: number) => boolean,
	onStall: () => void,
) {
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
