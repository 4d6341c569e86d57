import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { dryRunProperty } from '../../nodes/SiteTenant/helpers/dryRun';
import type { RequestTarget } from '../../nodes/shared/transport';
import { siteRequest } from '../../nodes/shared/transport';
import { routedNode } from './routed-node';

/**
 * An operation that forgot its Dry Run: it has the parameter but sends its write regardless
 * (`method` to `path`), through the package's router and sender. What the sender must refuse.
 */
export const writeProbe = routedNode(
	'writeProbe',
	async function (this: IExecuteFunctions, itemIndex: number, target: RequestTarget) {
		const method = this.getNodeParameter('method', itemIndex) as 'PUT';
		const path = this.getNodeParameter('path', itemIndex) as string;
		const body = { key: `probe-${itemIndex}`, value: 'v' };
		const answer = await siteRequest.call(this, { method, path, body }, { itemIndex, target });
		return { answer: answer as IDataObject };
	},
	{
		credentials: [{ name: 'siteTenantApi', required: true }],
		properties: [
			{ displayName: 'Method', name: 'method', type: 'string', default: 'PUT' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/api/variables' },
			dryRunProperty('nothing'),
		],
	},
);
