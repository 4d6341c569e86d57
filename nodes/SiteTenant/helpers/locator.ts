/**
 * Resource locators that replace a plain string parameter from some node version on, n8n's way: the
 * old parameter stays (shown only to older versions, read as before) and the locator of the same name
 * is shown from that version.
 */
import type { IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';

import { isRecord } from '../../shared/json';
import { versionedProperty } from '../../shared/version';

/** The plain string parameter before `version`, the locator of the same name from it on. */
export const versionedParameter = versionedProperty;

function isLocator(value: unknown): value is INodeParameterResourceLocator {
	return isRecord(value) && value.__rl === true;
}

/**
 * The trimmed value of a resource locator parameter, whatever its mode; undefined when the saved
 * parameter is the plain string of an older version (the caller reads it as it always did).
 */
export function readLocatorValue(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
): string | undefined {
	const raw = ctx.getNodeParameter(name, itemIndex, '', { extractValue: false }) as unknown;
	return isLocator(raw) ? String(raw.value ?? '').trim() : undefined;
}
