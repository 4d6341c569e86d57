/**
 * The Custom API Call reaches any endpoint of the tenant surface, but only under `/api/`: the token
 * must never be sent elsewhere (another host, or a path that climbs out of /api/).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** Returns the problem with a path, or undefined when it is a plain path under /api/. */
export function apiPathProblem(path: string): string | undefined {
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
			description: `Got "${raw}". The Custom API Call only reaches endpoints under /api/ of the credential's base URL.`,
		});
	}
	return path;
}
