/** Messages between the main thread and a JSON worker (worker.ts). */

export interface JsonTask {
	/** The body's bytes, transferred (not copied) to the worker. */
	bytes: Uint8Array;
	/** Method and URL: with the body they make the request's Idempotency-Key hash. */
	method: string;
	url: string;
	/**
	 * Top-level fields the route stores as JSON text (route config `jsonTextFields`): when such a
	 * field is an array of objects, the worker returns its JSON text and leaves an empty array in its
	 * place, so the main thread neither receives the objects nor serialises them again.
	 */
	textFields: string[];
}

/** Why a body was refused; the main thread answers with the very error the in-thread path gives. */
export type JsonRefusal = 'utf8' | 'depth' | 'proto' | 'json';

export type JsonOutcome =
	| { refused: JsonRefusal }
	| {
			refused?: undefined;
			body: unknown;
			/** JSON text of each field of JsonTask.textFields that was replaced by an empty array. */
			texts: Record<string, string>;
			/** The Idempotency-Key hash of the whole body (lib/request-hash.ts). */
			hash: string;
	  };

/** secure-json-parse refused a `__proto__` key: valid JSON, not accepted (not "not valid JSON"). */
export function isForbiddenKey(error: unknown): boolean {
	return /forbidden prototype property/i.test(String((error as Error)?.message ?? ''));
}
