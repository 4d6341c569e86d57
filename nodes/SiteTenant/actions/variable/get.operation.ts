/**
 * Variable > Get: one variable `{key, value}` by key. The service lists variables only
 * (`GET /api/variables`), so the list is read and the key looked up; no such key fails the item.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget, SiteItem } from '../../../shared/transport';
import { siteRequest, unwrapList } from '../../../shared/transport';
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
	item: SiteItem,
): Promise<IDataObject | undefined> {
	const response = await siteRequest.call(ctx, { method: 'GET', path: '/api/variables' }, item);
	return unwrapList(response).find((candidate) => candidate.key === key);
}

/** The variable `key`; no such key fails the item. */
export async function readVariable(
	ctx: IExecuteFunctions,
	key: string,
	item: SiteItem,
): Promise<IDataObject> {
	const variable = await findVariable(ctx, key, item);
	if (!variable) {
		throw new NodeOperationError(ctx.getNode(), `No variable with key "${key}"`, {
			itemIndex: item.itemIndex,
			description: 'Variable > Get Many lists the keys the site has',
		});
	}
	return variable;
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	return await readVariable(this, readVariableKey(this, itemIndex), { itemIndex, target });
}
