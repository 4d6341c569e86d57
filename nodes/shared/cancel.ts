/**
 * Waits that end when the user stops the execution. n8n hands a node run its cancel signal
 * (getExecutionCancelSignal); n8n's `sleep` takes it on n8n 2.x, and the race below ends the wait on
 * n8n 1.x too, whose `sleep` takes only the milliseconds.
 */
import { sleep } from 'n8n-workflow';

export type CancelSignal = AbortSignal;

/** The run's cancel signal, where the context has one (execute contexts). */
export function cancelSignalOf(ctx: object): CancelSignal | undefined {
	const withSignal = ctx as { getExecutionCancelSignal?: () => CancelSignal | undefined };
	return typeof withSignal.getExecutionCancelSignal === 'function'
		? withSignal.getExecutionCancelSignal()
		: undefined;
}

/** Thrown when a wait or a request ends because the execution was cancelled. */
export class ExecutionCancelledError extends Error {
	constructor() {
		super('The execution was cancelled');
		this.name = 'ExecutionCancelledError';
	}
}

/** Waits `ms`, or until `signal` aborts (then throws ExecutionCancelledError). */
export async function pause(ms: number, signal: CancelSignal | undefined): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw new ExecutionCancelledError();
	let onAbort: (() => void) | undefined;
	const aborted = new Promise<never>((_, reject) => {
		onAbort = () => reject(new ExecutionCancelledError());
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), aborted]);
	} catch (error) {
		throw signal.aborted ? new ExecutionCancelledError() : error;
	} finally {
		if (onAbort) signal.removeEventListener('abort', onAbort);
		aborted.catch(() => undefined);
	}
}
