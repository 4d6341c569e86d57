/**
 * The site's settings as they are now (`GET /api/settings`), for Settings > Update's previous values
 * and its Dry Run. Reading settings is an extension of the reference server: a service without it
 * answers 404 or 405, and this says which.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { recordIn } from '../../../shared/json';
import { tenantApiRequest } from '../../transport';

export async function readSettings(
	ctx: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject | { unreadable: number }> {
	try {
		const response = await tenantApiRequest.call(
			ctx,
			{ method: 'GET', path: '/api/settings' },
			{ itemIndex },
		);
		return recordIn(response, 'settings');
	} catch (error) {
		// The transport throws n8n's errors only (a NodeOperationError passes through as it is).
		const failure =
			error instanceof NodeApiError
				? error
				: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		const status = failure instanceof NodeApiError ? Number(failure.httpCode) : NaN;
		if (status === 404 || status === 405) return { unreadable: status };
		throw failure;
	}
}
