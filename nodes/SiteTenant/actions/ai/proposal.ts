/**
 * Pure functions that turn whatever an AI step produced into a validated content proposal
 * `{url, templates, banner?}` for `PUT /api/content`, and the page version it was made from
 * (`version`, the page's updated_at), when it carries one. Nothing here talks to n8n or the network:
 * problems are thrown as `ProposalError`, which the node turns into a `NodeOperationError`.
 *
 * Accepted input shapes (unwrapped recursively):
 * - the proposal object itself;
 * - a JSON string of it (also double-encoded), or text with the JSON in a fenced code block
 *   (```json … ``` or ``` … ```) or as a bare `{…}` among prose;
 * - chat-completion output: OpenAI `{choices:[{message:{content}}]}` (or `{choices:[{text}]}`),
 *   `{message:{content}}`, `{content:"…"}`, `{text:"…"}`, `{output:"…"}` (n8n AI nodes),
 *   `{response:"…"}`, `{completion:"…"}`, Anthropic `{content:[{type:"text", text}]}`,
 *   OpenAI Responses `{output:[{type:"message", content:[{type:"output_text", text}]}]}`,
 *   Gemini `{candidates:[{content:{parts:[{text}]}}]}`.
 */
import { describeType, isPlainObject, isRecord } from '../../../shared/json';

type JsonObject = { [key: string]: unknown };

export interface Proposal {
	url: string;
	templates: JsonObject[];
	banner?: JsonObject | null;
}

export interface ParsedProposal {
	proposal: Proposal;
	/** The page version the proposal says it was made from, when it gives one (proposalGuard.ts). */
	version?: string;
	/** Top-level keys of the proposal other than url, templates and banner: ignored, not sent. */
	ignoredKeys: string[];
}

interface ParseProposalOptions {
	/**
	 * A page url given next to the proposal. When the proposal has no url this one is used;
	 * when it has one, the two must be equal.
	 */
	url?: string;
}

export class ProposalError extends Error {
	constructor(
		message: string,
		readonly problems: string[] = [message],
	) {
		super(message);
		this.name = 'ProposalError';
	}
}

const PROPOSAL_KEYS = ['url', 'templates', 'banner', 'version'];
const MAX_DEPTH = 8;

/** Reads `a.b.c` (also `a[0].b` and `a.0.b`) from an object; undefined when any step is missing. */
export function getByPath(source: unknown, path: string): unknown {
	const trimmed = path.trim();
	if (trimmed === '') return source;
	const steps = trimmed
		.replace(/\[(\d+)\]/g, '.$1')
		.split('.')
		.filter((step) => step !== '');
	let current: unknown = source;
	for (const step of steps) {
		if (Array.isArray(current) && /^\d+$/.test(step)) {
			current = current[Number(step)];
		} else if (isRecord(current)) {
			if (!Object.prototype.hasOwnProperty.call(current, step)) return undefined;
			current = current[step];
		} else {
			return undefined;
		}
	}
	return current;
}

/** Finds the end index (inclusive) of the balanced `{…}` starting at `start`, or -1. */
function matchingBrace(text: string, start: number): number {
	let depth = 0;
	let inString = false;
	for (let i = start; i < text.length; i++) {
		const char = text[i];
		if (inString) {
			if (char === '\\') i++;
			else if (char === '"') inString = false;
			continue;
		}
		if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}') {
			depth--;
			if (depth === 0) return i;
		}
	}
	return -1;
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
	try {
		return { ok: true, value: JSON.parse(text) as unknown };
	} catch (error) {
		return { ok: false, error: (error as Error).message };
	}
}

/**
 * The fenced code blocks of model output, in order: a ``` line (its first word the language), the
 * lines up to the next ```. When none closes, the first open one takes the rest of the text (the
 * model was cut off or forgot the closing ```). Found with indexOf, not a pattern: a lazy body up to
 * ``` backtracks from every opening, quadratic in output with many unclosed fences.
 */
export function fencedBlocks(text: string): Array<{ lang: string; body: string }> {
	const blocks: Array<{ lang: string; body: string }> = [];
	for (let from = 0; ;) {
		const open = text.indexOf('```', from);
		const lineEnd = open === -1 ? -1 : text.indexOf('\n', open + 3);
		if (lineEnd === -1) return blocks;
		const header = text.slice(open + 3, lineEnd);
		const lang = (/^[ \t]*([A-Za-z0-9_+-]*)/.exec(header)?.[1] ?? '').toLowerCase();
		const close = text.indexOf('```', lineEnd + 1);
		if (close === -1) {
			if (blocks.length === 0) blocks.push({ lang, body: text.slice(lineEnd + 1).trim() });
			return blocks;
		}
		blocks.push({ lang, body: text.slice(lineEnd + 1, close).trim() });
		from = close + 3;
	}
}

/**
 * Finds the JSON value a piece of model output carries: the whole text when it is JSON, else the
 * first fenced code block that parses (blocks labelled json first), else the first balanced `{…}`
 * that parses.
 */
export function extractJsonFromText(text: string): unknown {
	const trimmed = text.trim();
	if (trimmed === '') throw new ProposalError('The proposal text is empty');

	const whole = tryJson(trimmed);
	if (whole.ok) return whole.value;

	const blocks = fencedBlocks(trimmed);
	blocks.sort((a, b) => Number(b.lang === 'json') - Number(a.lang === 'json'));
	let blockError: string | undefined;
	for (const block of blocks) {
		const parsed = tryJson(block.body);
		if (parsed.ok) return parsed.value;
		blockError ??= parsed.error;
	}
	if (blockError !== undefined) {
		throw new ProposalError(`The code block in the proposal text is not valid JSON: ${blockError}`);
	}
	return findObjectInProse(trimmed);
}

/**
 * Scans prose for balanced `{…}`: the first one that parses and looks like a proposal wins; else a
 * top-level one that does not parse, or one left unclosed, is reported; else the first object that
 * parses is returned (and validation says what it lacks).
 */
function findObjectInProse(text: string): unknown {
	let firstObject: JsonObject | undefined;
	let topLevelError: string | undefined;
	let unterminated = false;
	let outerEnd = -1;
	for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
		const end = matchingBrace(text, start);
		if (end === -1) {
			if (start > outerEnd) {
				// Everything after an unclosed top-level brace is inside it.
				unterminated = true;
				outerEnd = text.length;
			}
			continue;
		}
		const topLevel = start > outerEnd;
		if (topLevel) outerEnd = end;
		const parsed = tryJson(text.slice(start, end + 1));
		if (parsed.ok && isPlainObject(parsed.value)) {
			if (looksLikeProposal(parsed.value)) return parsed.value;
			firstObject ??= parsed.value;
			start = end;
		} else if (!parsed.ok && topLevel) {
			topLevelError ??= parsed.error;
		}
	}
	if (topLevelError !== undefined) {
		throw new ProposalError(
			`The JSON object in the proposal text is not valid JSON: ${topLevelError}`,
		);
	}
	if (unterminated) {
		throw new ProposalError(
			'The JSON object in the proposal text is incomplete (no closing brace): the model output may have been cut off',
		);
	}
	if (firstObject !== undefined) return firstObject;
	throw new ProposalError('No JSON object found in the proposal text');
}

function looksLikeProposal(value: JsonObject): boolean {
	return 'templates' in value || 'url' in value;
}

/** A text part of a chat message: `{type:"text", text}`, `{type:"output_text", text}`, `{text}`. */
function textOfPart(part: unknown): string | undefined {
	if (typeof part === 'string') return part;
	if (!isPlainObject(part) || typeof part.text !== 'string') return undefined;
	if (part.type === undefined || part.type === 'text' || part.type === 'output_text') {
		return part.text;
	}
	return undefined;
}

function unwrapArray(value: unknown[], depth: number): unknown {
	if (value.length === 0) throw new ProposalError('The proposal is an empty array');
	const texts = value.map(textOfPart);
	if (texts.every((text) => text !== undefined)) {
		return unwrap(texts.join('\n'), depth + 1);
	}
	if (value.length === 1) return unwrap(value[0], depth + 1);
	// Several parts (e.g. reasoning + message, or tool calls + text): the first that yields one.
	let firstError: unknown;
	for (const element of value) {
		if (textOfPart(element) === undefined && !isPlainObject(element)) continue;
		try {
			const result = unwrap(element, depth + 1);
			if (isPlainObject(result) && looksLikeProposal(result)) return result;
		} catch (error) {
			firstError ??= error;
		}
	}
	if (firstError !== undefined) throw firstError;
	throw new ProposalError('No proposal found in the array given as proposal');
}

const WRAPPER_KEYS = [
	'choices',
	'candidates',
	'message',
	'content',
	'parts',
	'output',
	'text',
	'response',
	'completion',
];

function unwrapObject(value: JsonObject, depth: number): unknown {
	if (looksLikeProposal(value)) return value;
	for (const key of WRAPPER_KEYS) {
		const inner = value[key];
		if (inner === undefined || inner === null) continue;
		if (typeof inner === 'string' || Array.isArray(inner) || isPlainObject(inner)) {
			return unwrap(inner, depth + 1);
		}
	}
	return value;
}

/** Peels chat-completion wrappers and text off the input until a JSON value remains. */
function unwrap(value: unknown, depth = 0): unknown {
	if (depth > MAX_DEPTH) throw new ProposalError('The proposal is nested too deeply to read');
	if (typeof value === 'string') {
		const parsed = extractJsonFromText(value);
		// A JSON string that itself holds JSON (double-encoded) or a wrapper: keep going.
		return typeof parsed === 'string' || Array.isArray(parsed) || isPlainObject(parsed)
			? unwrap(parsed, depth + 1)
			: parsed;
	}
	if (Array.isArray(value)) return unwrapArray(value, depth);
	if (isPlainObject(value)) return unwrapObject(value, depth);
	return value;
}

/** Checks a candidate against `{url, templates, banner?}`; lists every problem found. */
function validateProposal(value: unknown, options: ParseProposalOptions = {}): ParsedProposal {
	if (!isPlainObject(value)) {
		throw new ProposalError(`Proposal must be a JSON object, got ${describeType(value)}`);
	}
	const problems: string[] = [];

	let url = value.url;
	if (url === undefined || url === null || url === '') {
		if (options.url) url = options.url;
		else problems.push('Proposal is missing "url" (the page path, e.g. "/about-us")');
	}
	if (url !== undefined && url !== null && url !== '') {
		if (typeof url !== 'string') {
			problems.push(`Proposal url must be a string, got ${describeType(url)}`);
		} else if (!url.startsWith('/')) {
			problems.push(
				`Proposal url must start with "/" (a site path such as /about-us), got "${url}"`,
			);
		} else if (options.url && url !== options.url) {
			problems.push(`Proposal url "${url}" does not match the URL parameter "${options.url}"`);
		}
	}

	const templates = value.templates;
	if (templates === undefined) {
		problems.push('Proposal is missing "templates" (an array of objects)');
	} else if (!Array.isArray(templates)) {
		problems.push(`Proposal templates must be an array, got ${describeType(templates)}`);
	} else {
		templates.forEach((template, index) => {
			if (!isPlainObject(template)) {
				problems.push(
					`Proposal templates[${index}] must be an object, got ${describeType(template)}`,
				);
			}
		});
	}

	const hasBanner = Object.prototype.hasOwnProperty.call(value, 'banner');
	const banner = value.banner;
	if (hasBanner && banner !== null && banner !== undefined && !isPlainObject(banner)) {
		problems.push(`Proposal banner must be an object or null, got ${describeType(banner)}`);
	}

	const version = value.version;
	if (version !== undefined && version !== null && typeof version !== 'string') {
		problems.push(
			`Proposal version must be a string (the page's updated_at), got ${describeType(version)}`,
		);
	}

	if (problems.length > 0) throw new ProposalError(problems.join('; '), problems);

	const proposal: Proposal = { url: url as string, templates: templates as JsonObject[] };
	if (hasBanner && banner !== undefined) proposal.banner = banner as JsonObject | null;
	return {
		proposal,
		...(typeof version === 'string' && version !== '' ? { version } : {}),
		ignoredKeys: Object.keys(value).filter((key) => !PROPOSAL_KEYS.includes(key)),
	};
}

/** Unwraps any accepted shape and validates the result. Throws `ProposalError`. */
export function parseProposal(input: unknown, options: ParseProposalOptions = {}): ParsedProposal {
	if (input === undefined || input === null || input === '') {
		throw new ProposalError('The proposal is empty');
	}
	return validateProposal(unwrap(input), options);
}
