/**
 * Node versions that change behaviour. One place to ask "is this node at least version N?", so an
 * operation gates a change on the version in one line and older workflows keep running as saved.
 */
import type { IDataObject, IDisplayOptions, INode, INodeProperties } from 'n8n-workflow';

import { objectOr } from './json';

/** From this version every operation of a resource outputs the record itself (plus named extras). */
export const RECORD_OUTPUT_VERSION = 3;

/**
 * From this version the defaults a new user meets are safe ones: Content > Update starts with no
 * templates (an empty list needs Clear All Blocks), Token > Issue gives tokens a lifetime, Custom API
 * Call starts at a path that works, the Admin node's fields share one Tenant ID, and Tenant > Create
 * or Update answers in one shape.
 */
export const SAFE_DEFAULTS_VERSION = 4;

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

/**
 * One parameter in two forms, n8n's way: `legacy` as workflows saved before `version` have it (shown
 * and read as before), `current` from `version` on. Both usually share a name.
 */
export function versionedProperty(
	legacy: INodeProperties,
	current: INodeProperties,
	version: number,
): INodeProperties[] {
	const gated = (property: INodeProperties, gate: { show: IDisplayOptions['show'] }) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, ...gate.show },
		},
	});
	return [gated(legacy, beforeVersion(version)), gated(current, fromVersion(version))];
}
