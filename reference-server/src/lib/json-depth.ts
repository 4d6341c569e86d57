/**
 * Deepest nesting of objects and arrays a JSON body may have. Storing a body serialises it
 * recursively: past ~4,500 levels that overflowed the stack (a 500); no real content nests near this.
 */
export const MAX_JSON_DEPTH = 1000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/**
 * Whether the JSON text nests deeper than maxDepth, counted over its bytes without parsing (strings
 * skipped; in UTF-8 no byte of a multi-byte character is an ASCII bracket or quote).
 */
export function nestsDeeperThan(bytes: Uint8Array, maxDepth: number): boolean {
	let depth = 0;
	let inString = false;
	for (let i = 0; i < bytes.length; i += 1) {
		const byte = bytes[i];
		if (inString) {
			if (byte === BACKSLASH) i += 1;
			else if (byte === QUOTE) inString = false;
		} else if (byte === QUOTE) inString = true;
		else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
			depth += 1;
			if (depth > maxDepth) return true;
		} else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth -= 1;
	}
	return false;
}
