import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { dryRunProperty } from '../../nodes/SiteTenant/helpers/dryRun';
import { tenantApiRequest } from '../../nodes/SiteTenant/transport';
import { executeOperations } from '../../nodes/shared/router';

/**
 * An operation that forgot its Dry Run: it has the parameter but sends its write regardless
 * (`method` to `path`), through the package's router and sender. What the sender must refuse.
 */
export class WriteProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Write Probe',
		name: 'writeProbe',
		group: ['transform'],
		version: 1,
		description: 'Sends a write whatever its Dry Run says',
		defaults: { name: 'Write Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'siteTenantApi', required: true }],
		properties: [
			{ displayName: 'Resource', name: 'resource', type: 'hidden', default: 'probe' },
			{ displayName: 'Operation', name: 'operation', type: 'hidden', default: 'write' },
			{ displayName: 'Method', name: 'method', type: 'string', default: 'PUT' },
			{ displayName: 'Path', name: 'path', type: 'string', default: '/api/variables' },
			dryRunProperty('nothing'),
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(this, {
			probe: {
				write: async function (this: IExecuteFunctions, itemIndex: number) {
					const method = this.getNodeParameter('method', itemIndex) as 'PUT';
					const path = this.getNodeParameter('path', itemIndex) as string;
					const body = { key: `probe-${itemIndex}`, value: 'v' };
					const answer = await tenantApiRequest.call(this, { method, path, body }, { itemIndex });
					return { answer: answer as IDataObject };
				},
			},
		});
	}
}
