/** Requests of the Admin node: always the central surface with the admin credential. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { SiteRequest } from '../../shared/transport';
import { siteApiRequest } from '../../shared/transport';

export async function adminApiRequest(
	this: IExecuteFunctions,
	request: SiteRequest,
	itemIndex: number,
): Promise<IDataObject> {
	const response = await siteApiRequest.call(this, 'siteAdminApi', request, { itemIndex });
	// The central surface answers objects; anything else (an empty body) is shown as an empty object.
	return typeof response === 'object' && response !== null && !Array.isArray(response)
		? (response as IDataObject)
		: {};
}

/** A trimmed string parameter; empty means "not given". */
export function optionalString(ctx: IExecuteFunctions, name: string, itemIndex: number): string | undefined {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	return value || undefined;
}
