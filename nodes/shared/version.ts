/**
 * Node versions that change behaviour. One place to ask "is this node at least version N?", so an
 * operation gates a change on the version in one line and older workflows keep running as saved.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { objectOr } from './json';

/** From this version every operation of a resource outputs the record itself (plus named extras). */
export const RECORD_OUTPUT_VERSION = 3;

export function isVersionAtLeast(ctx: { getNode(): INode }, version: number): boolean {
	return ctx.getNode().typeVersion >= version;
}

/** Whether the node outputs records (version 3 on) rather than the service's answers as they came. */
export function outputsRecords(ctx: { getNode(): INode }): boolean {
	return isVersionAtLeast(ctx, RECORD_OUTPUT_VERSION);
}

/**
 * The record an answer such as `{message, page}` carries under `key`, when the node outputs records;
 * otherwise (older versions, or an answer without it) the answer unchanged.
 */
export function recordOf(ctx: { getNode(): INode }, response: unknown, key: string): IDataObject {
	const answer = (response ?? {}) as IDataObject;
	if (!outputsRecords(ctx)) return answer;
	return objectOr(answer[key], answer);
}

/** displayOptions that show a property only before `version` (the saved shape) or from it on. */
export const beforeVersion = (version: number) => ({
	show: { '@version': [{ _cnd: { lt: version } }] },
});
export const fromVersion = (version: number) => ({
	show: { '@version': [{ _cnd: { gte: version } }] },
});
