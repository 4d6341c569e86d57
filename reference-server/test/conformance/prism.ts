/**
 * Stoplight Prism's validating proxy in front of a running server: every exchange that goes through
 * it is checked against the OpenAPI document, request and response, and what does not conform comes
 * back in the `sl-violations` header (without --errors the server's own answer is passed through).
 */
// scripts/lib is CommonJS without types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPrism: startPrismCli } = require('../../../scripts/lib/prism') as {
	startPrism(mode: string, document: object, modeArgs?: string[]): Promise<Prism>;
};

export interface Violation {
	location: string[];
	severity: string;
	code?: string | number;
	message: string;
}

export interface Prism {
	url: string;
	/** Prism's output so far, for a failure message. */
	output(): string;
	stop(): Promise<void>;
}

/** The violations Prism reported on one answer ([] when it sent no sl-violations header). */
export function violationsOf(headers: Record<string, string | string[] | undefined>): Violation[] {
	const header = headers['sl-violations'];
	return header === undefined ? [] : (JSON.parse(String(header)) as Violation[]);
}

/** Starts `prism proxy` in front of `upstream` on a free loopback port (scripts/lib/prism.js). */
export async function startPrism(document: object, upstream: string): Promise<Prism> {
	return await startPrismCli('proxy', document, [upstream]);
}
