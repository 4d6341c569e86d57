/**
 * A node of a test's own on the package's router (executeOperations): one operation, `handler`,
 * under resource `test` and operation `run`, with the test's properties and credentials; each item's
 * target is the Tenant node's (its Authentication parameter's credential) unless `runOptions` says.
 */
import type {
	IExecuteFunctions,
	INodeCredentialDescription,
	INodeExecutionData,
	INodeProperties,
	INodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { executeOperations, type OperationHandler } from '../../nodes/shared/router';
import { resolveTenantTarget } from '../../nodes/shared/target';

export function routedNode(
	name: string,
	handler: OperationHandler,
	{
		properties = [],
		credentials = [],
		runOptions = {
			resolveTarget: async (ctx, itemIndex) => await resolveTenantTarget(ctx, itemIndex),
		},
	}: {
		properties?: INodeProperties[];
		credentials?: INodeCredentialDescription[];
		runOptions?: Parameters<typeof executeOperations>[1];
	} = {},
): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['transform'],
			version: 1,
			description: `A node of a test: ${name}`,
			defaults: { name },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials,
			properties: [
				{ displayName: 'Resource', name: 'resource', type: 'hidden', default: 'test' },
				{ displayName: 'Operation', name: 'operation', type: 'hidden', default: 'run' },
				...properties,
			],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			return await executeOperations.call(this, { test: { run: handler } }, runOptions);
		},
	};
}
