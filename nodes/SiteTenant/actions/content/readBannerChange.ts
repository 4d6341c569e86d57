/**
 * What the Banner parameter means: empty = leave the banner as it is (not sent); the word `null`
 * (or Clear Banner) = remove it (sent as null); otherwise a JSON object.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { parseJsonValue } from '../../../shared/validation';

type BannerChange = { send: false } | { send: true; banner: IDataObject | null };

export function readBannerChange(ctx: IExecuteFunctions, itemIndex: number): BannerChange {
	if (ctx.getNodeParameter('clearBanner', itemIndex, false) as boolean)
		return { send: true, banner: null };

	const value = ctx.getNodeParameter('banner', itemIndex, '') as unknown;
	if (value === undefined || value === null)
		return value === null ? { send: true, banner: null } : { send: false };
	if (typeof value === 'string') {
		const text = value.trim();
		if (!text) return { send: false };
		if (text === 'null') return { send: true, banner: null };
	}
	return { send: true, banner: parseJsonValue(ctx, value, 'Banner', 'object', itemIndex) };
}
