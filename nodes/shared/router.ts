/**
 * Runs the chosen resource/operation for every input item.
 *
 * Items run in batches (Options > Batching: items of one batch run concurrently, with a pause between
 * batches); outputs keep the input order whatever the batching, and every output item is paired with
 * the input item it came from. With "Continue On Fail" a failed item becomes an error item and the
 * others go on; without it the first failure (in input order) stops the node.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

export type OperationResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** One operation of one resource, called once per input item. */
export type OperationHandler = (this: IExecuteFunctions, itemIndex: number) => Promise<OperationResult>;

/** Handlers of one resource, keyed by operation value. */
export type OperationHandlers = Record<string, OperationHandler>;

/** Handlers of every resource of a node, keyed by resource value. */
export type ResourceHandlers = Record<string, OperationHandlers>;

const EXECUTION_DATA_KEYS = new Set(['json', 'binary', 'pairedItem', 'error']);

function isExecutionData(value: unknown): value is INodeExecutionData {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const record = value as IDataObject;
	return (
		typeof record.json === 'object' &&
		record.json !== null &&
		Object.keys(record).every((key) => EXECUTION_DATA_KEYS.has(key))
	);
}

/** Turns what a handler returned into output items paired with the input item. */
export function toOutputItems(result: OperationResult, itemIndex: number): INodeExecutionData[] {
	const list: unknown[] = Array.isArray(result) ? result : [result];
	return list.map((entry) => {
		if (isExecutionData(entry)) return { ...entry, pairedItem: { item: itemIndex } };
		return { json: (entry ?? {}) as IDataObject, pairedItem: { item: itemIndex } };
	});
}

interface BatchingSettings {
	batchSize: number;
	batchInterval: number;
}

/** Options > Batching, read once for the node (like n8n's HTTP Request node does). */
function readBatching(ctx: IExecuteFunctions): BatchingSettings {
	const batchSize = Number(ctx.getNodeParameter('options.batching.batch.batchSize', 0, 1));
	const batchInterval = Number(ctx.getNodeParameter('options.batching.batch.batchInterval', 0, 0));
	return {
		batchSize: Number.isFinite(batchSize) && batchSize >= 1 ? Math.floor(batchSize) : 1,
		batchInterval: Number.isFinite(batchInterval) && batchInterval > 0 ? batchInterval : 0,
	};
}

/** The error item "Continue On Fail" puts in place of a failed item. */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const context = (error as NodeApiError).context ?? {};
	const details = context.details ?? (error as NodeApiError).description;
	if (details !== undefined && details !== null && details !== '') json.details = details as IDataObject;
	const httpCode = (error as NodeApiError).httpCode;
	if (httpCode) json.httpCode = httpCode;
	return { json, pairedItem: { item: itemIndex } };
}

/** Makes sure the error says which item failed, without wrapping n8n errors twice. */
function withItemIndex(ctx: IExecuteFunctions, error: unknown, itemIndex: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * The handler of the node's resource and operation. Both parameters take no expressions
 * (noDataExpression), so they are the same for every item and are read once per run.
 */
function chooseHandler(ctx: IExecuteFunctions, handlers: ResourceHandlers): OperationHandler | { unsupported: string } {
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operation = ctx.getNodeParameter('operation', 0) as string;
	return (
		handlers[resource]?.[operation] ?? {
			unsupported: `The operation "${operation}" of resource "${resource}" is not supported`,
		}
	);
}

async function runItem(
	ctx: IExecuteFunctions,
	handler: OperationHandler | { unsupported: string },
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	if (typeof handler !== 'function') throw new NodeOperationError(ctx.getNode(), handler.unsupported, { itemIndex });
	const result = await handler.call(ctx, itemIndex);
	return toOutputItems(result, itemIndex);
}

export async function executeOperations(
	this: IExecuteFunctions,
	handlers: ResourceHandlers,
): Promise<INodeExecutionData[][]> {
	const itemCount = this.getInputData().length;
	const { batchSize, batchInterval } = readBatching(this);
	const outputsByItem: INodeExecutionData[][] = new Array(itemCount);
	if (itemCount === 0) return [[]];
	const handler = chooseHandler(this, handlers);

	for (let start = 0; start < itemCount; start += batchSize) {
		if (start > 0 && batchInterval > 0) await sleep(batchInterval);
		const indexes = Array.from(
			{ length: Math.min(batchSize, itemCount - start) },
			(_, offset) => start + offset,
		);
		const settled = await Promise.allSettled(indexes.map(async (i) => await runItem(this, handler, i)));

		settled.forEach((outcome, offset) => {
			const itemIndex = indexes[offset];
			if (outcome.status === 'fulfilled') {
				outputsByItem[itemIndex] = outcome.value;
				return;
			}
			const error = withItemIndex(this, outcome.reason, itemIndex);
			if (!this.continueOnFail()) throw error;
			outputsByItem[itemIndex] = [errorItem(error, itemIndex)];
		});
	}

	return [outputsByItem.flat()];
}
