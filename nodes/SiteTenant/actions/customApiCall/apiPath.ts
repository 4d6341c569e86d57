/**
 * The API Call reaches any endpoint of the tenant surface, but only under `/api/`: the token
 * must never be sent elsewhere (another host, or a path that climbs out of /api/).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** A stand-in base path: where the path lands after parsing does not depend on what comes before it. */
const PROBE_BASE = 'http://site.invalid/base';

/**
 * Where the path lands once parsed as n8n's HTTP client parses it (WHATWG URL: tabs and newlines
 * dropped, `.`, `..` and their percent-encoded forms resolved), relative to the base path.
 */
function parsedPath(path: string): string | undefined {
	try {
		const { pathname } = new URL(`${PROBE_BASE}${path}`);
		return pathname.startsWith('/base/') ? pathname.slice('/base'.length) : undefined;
	} catch {
		return undefined;
	}
}

/** Returns the problem with a path, or undefined when it is a plain path under /api/. */
export function apiPathProblem(path: string): string | undefined {
	// URL parsing drops tabs and newlines: `/api/.\t./x` would pass the checks below as written and
	// reach `/x` once parsed. No control character has a place in a path.
	// eslint-disable-next-line no-control-regex -- control characters are what it looks for
	if (/[\u0000-\u001f\u007f]/.test(path)) {
		return 'must not contain control characters (tabs, newlines...)';
	}
	if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
		return 'must be a path such as /api/chatbot, not a full URL (the base URL comes from the credential)';
	}
	if (path.includes('\\')) return 'must not contain backslashes';
	let decoded = path;
	try {
		decoded = decodeURIComponent(path.split(/[?#]/)[0]);
	} catch {
		return 'is not a valid URL path (bad percent-encoding)';
	}
	const segments = decoded.split('/');
	if (segments.some((segment) => segment === '..' || segment === '.')) {
		return 'must not contain "." or ".." segments';
	}
	if (!/^\/api\/[^/]/.test(path))
		return 'must start with /api/ followed by an endpoint, e.g. /api/chatbot';
	// The last word is the path as it will be sent: it must still be under /api/.
	if (!/^\/api\/[^/]/.test(parsedPath(path) ?? '')) {
		return 'must stay under /api/ once the URL is parsed';
	}
	return undefined;
}

/** Reads the Path parameter: leading slash added if missing, then checked. */
export function readApiPath(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = String(ctx.getNodeParameter('path', itemIndex, '') ?? '').trim();
	const path = raw.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : `/${raw}`;
	const problem = apiPathProblem(path);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `Path ${problem}`, {
			itemIndex,
			description: `Got "${raw}". The API Call only reaches endpoints under /api/ of the credential's base URL.`,
		});
	}
	return path;
}
