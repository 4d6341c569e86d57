/** Reading resource locator parameters (Page, Variable). */
import type { IExecuteFunctions, INodeParameterResourceLocator } from 'n8n-workflow';

import { isRecord } from '../../shared/json';

function isLocator(value: unknown): value is INodeParameterResourceLocator {
	return isRecord(value) && value.__rl === true;
}

/**
 * The trimmed value of a resource locator parameter, whatever its mode (a plain string, as an AI
 * agent may give it, is taken as the value).
 */
export function readLocatorValue(ctx: IExecuteFunctions, name: string, itemIndex: number): string {
	const raw = ctx.getNodeParameter(name, itemIndex, '', { extractValue: false }) as unknown;
	return String((isLocator(raw) ? raw.value : raw) ?? '').trim();
}
