/**
 * Runs the chosen resource/operation for every input item.
 *
 * Items run through a sliding window of requests in flight (Options > Concurrency), grouped by
 * Options > Batching for a pause between groups; outputs keep the input order whatever ran first, and
 * every output item is paired with the input item it came from. With "Continue On Fail" a failed
 * item becomes an error item and the others go on; without it the first failure (in input order)
 * stops the node.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { cancelSignalOf, ExecutionCancelledError, pause } from './cancel';
import { isRecord } from './json';
import { positiveInteger, readConcurrency, runWindow, throwFirstFailure } from './window';

export type OperationResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** One operation of one resource, called once per input item. */
export type OperationHandler = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<OperationResult>;

/** Handlers of one resource, keyed by operation value. */
export type OperationHandlers = Record<string, OperationHandler>;

/** Handlers of every resource of a node, keyed by resource value. */
export type ResourceHandlers = Record<string, OperationHandlers>;

const EXECUTION_DATA_KEYS = new Set(['json', 'binary', 'pairedItem', 'error']);

function isExecutionData(value: unknown): value is INodeExecutionData {
	if (!isRecord(value)) return false;
	return (
		typeof value.json === 'object' &&
		value.json !== null &&
		Object.keys(value).every((key) => EXECUTION_DATA_KEYS.has(key))
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

interface RunSettings {
	/** Items per group; a group starts once the one before is done (and the interval has passed). */
	batchSize: number;
	/** Milliseconds between groups. */
	batchInterval: number;
	/** Requests in flight at once within a group: a new item starts as soon as one finishes. */
	concurrency: number;
}

/**
 * Options > Concurrency and Batching, read once for the node (like n8n's HTTP Request node does).
 * Items run through a sliding window of `concurrency` requests; Batching only groups them for a
 * pause between groups (rate limits), at most `concurrency` in flight within a group.
 */
function readRunSettings(ctx: IExecuteFunctions): RunSettings {
	// null: the option is not set (n8n throws for a missing parameter without a fallback).
	const configuredBatchSize = ctx.getNodeParameter('options.batching.batch.batchSize', 0, null);
	const batchInterval = Number(ctx.getNodeParameter('options.batching.batch.batchInterval', 0, 0));
	return {
		batchSize: configuredBatchSize === null ? Infinity : positiveInteger(configuredBatchSize, 1),
		batchInterval: Number.isFinite(batchInterval) && batchInterval > 0 ? batchInterval : 0,
		concurrency: readConcurrency(ctx),
	};
}

/** The error item "Continue On Fail" puts in place of a failed item. */
function errorItem(error: Error, itemIndex: number): INodeExecutionData {
	const json: IDataObject = { error: error.message };
	const context = (error as NodeApiError).context ?? {};
	const details = context.details ?? (error as NodeApiError).description;
	if (details !== undefined && details !== null && details !== '')
		json.details = details as IDataObject;
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
function chooseHandler(
	ctx: IExecuteFunctions,
	handlers: ResourceHandlers,
): OperationHandler | { unsupported: string } {
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
	if (typeof handler !== 'function')
		throw new NodeOperationError(ctx.getNode(), handler.unsupported, { itemIndex });
	const result = await handler.call(ctx, itemIndex);
	return toOutputItems(result, itemIndex);
}

export async function executeOperations(
	this: IExecuteFunctions,
	handlers: ResourceHandlers,
): Promise<INodeExecutionData[][]> {
	const itemCount = this.getInputData().length;
	if (itemCount === 0) return [[]];
	const { batchSize, batchInterval, concurrency } = readRunSettings(this);
	const outputsByItem: INodeExecutionData[][] = new Array(itemCount);
	const handler = chooseHandler(this, handlers);
	const continueOnFail = this.continueOnFail();
	// A cancelled execution starts no further item; the ones in flight end their waits and requests.
	const signal = cancelSignalOf(this);
	const cancelled = () => signal?.aborted === true;

	const run = async (itemIndex: number) => {
		try {
			outputsByItem[itemIndex] = await runItem(this, handler, itemIndex);
		} catch (error) {
			const withIndex = withItemIndex(this, error, itemIndex);
			if (!continueOnFail) throw withIndex;
			outputsByItem[itemIndex] = [errorItem(withIndex, itemIndex)];
		}
	};

	for (let start = 0; start < itemCount && !cancelled(); start += batchSize) {
		if (start > 0 && batchInterval > 0) {
			try {
				await pause(batchInterval, signal);
			} catch (error) {
				if (error instanceof ExecutionCancelledError) break;
				throw new NodeOperationError(this.getNode(), error as Error);
			}
		}
		const end = Math.min(itemCount, start + batchSize);
		throwFirstFailure(await runWindow(start, end, concurrency, run, cancelled));
	}

	return [outputsByItem.flat()];
}
