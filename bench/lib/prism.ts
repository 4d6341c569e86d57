/**
 * Stoplight Prism's mock server (`prism mock`, a dev dependency) serving an OpenAPI document: the
 * answer any server generated from the document would give, for the server-vs-prism figures. Started
 * by scripts/lib/prism.js, which the conformance tests use for Prism's proxy.
 */
import { join } from 'path';

export interface PrismMock {
	url: string;
	stop(): Promise<void>;
}

// From bench/dist/bench/lib: the scripts are plain JavaScript, not compiled here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startPrism } = require(
	join(__dirname, '..', '..', '..', '..', 'scripts', 'lib', 'prism.js'),
) as {
	startPrism(mode: 'mock', document: object): Promise<PrismMock>;
};

/** Starts `prism mock` on a free loopback port; resolves once it listens. */
export async function startPrismMock(document: object): Promise<PrismMock> {
	return await startPrism('mock', document);
}
