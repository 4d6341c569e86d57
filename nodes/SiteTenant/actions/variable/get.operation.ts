/**
 * Variable > Get: one variable `{key, value}` by key. The service lists variables only
 * (`GET /api/variables`), so the list is read and the key looked up; no such key fails the item.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { tenantApiRequest } from '../../transport';
import { unwrapList } from '../../../shared/transport';
import { readVariableKey, variableParameter } from './locator';

const properties: INodeProperties[] = variableParameter('Name of the variable to read');

export const description = updateDisplayOptions(
	{ show: { resource: ['variable'], operation: ['get'] } },
	properties,
);

/** The variable `key` as the service lists it; undefined when the site has none by that key. */
export async function findVariable(
	ctx: IExecuteFunctions,
	key: string,
	itemIndex: number,
): Promise<IDataObject | undefined> {
	const response = await tenantApiRequest.call(
		ctx,
		{ method: 'GET', path: '/api/variables' },
		{ itemIndex },
	);
	return unwrapList(response).find((candidate) => candidate.key === key);
}

/** The variable `key`; no such key fails the item. */
export async function readVariable(
	ctx: IExecuteFunctions,
	key: string,
	itemIndex: number,
): Promise<IDataObject> {
	const variable = await findVariable(ctx, key, itemIndex);
	if (!variable) {
		throw new NodeOperationError(ctx.getNode(), `No variable with key "${key}"`, {
			itemIndex,
			description: 'Variable > Get Many lists the keys the site has',
		});
	}
	return variable;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await readVariable(this, readVariableKey(this, itemIndex), itemIndex);
}
