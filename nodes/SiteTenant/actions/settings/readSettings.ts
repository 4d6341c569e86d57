/**
 * The site's settings as they are now (`GET /api/settings`), for Setting > Update's previous values
 * and its Dry Run. Reading settings is an extension of the reference server: a service without it
 * answers 404 or 405, and this says which.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isMissingEndpoint, requestFailure } from '../../../shared/errors';
import { recordIn } from '../../../shared/json';
import type { SiteItem } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';

export async function readSettings(
	ctx: IExecuteFunctions,
	item: SiteItem,
): Promise<IDataObject | { unreadable: number }> {
	const { itemIndex } = item;
	try {
		const response = await siteRequest.call(ctx, { method: 'GET', path: '/api/settings' }, item);
		return recordIn(response, 'settings');
	} catch (error) {
		const { failure, status } = requestFailure(ctx.getNode(), error, itemIndex);
		if (isMissingEndpoint(status)) return { unreadable: status };
		throw failure;
	}
}
