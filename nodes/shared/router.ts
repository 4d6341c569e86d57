/**
 * Runs the chosen resource/operation for every input item.
 *
 * Items run through a sliding window of requests in flight (Options > Concurrency), grouped by
 * Options > Batching for a pause between groups; outputs keep the input order whatever ran first, and
 * every output item is paired with the input item it came from. Under On Error "Continue (regular
 * output)" a failed item becomes an error item in the output; under "Continue (using error output)"
 * the same item leaves by n8n's error output. Under "Stop" the first failure starts no further item,
 * the ones in flight end, and the error (the first failure in input order) tells which items were
 * applied, which failed and which were never started.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { cancelSignalOf, ExecutionCancelledError, pause } from './cancel';
import { isRecord } from './json';
import { currentOperationLabel, type OperationLabels } from './operationLabel';
import { stoppedRunData, stoppedRunSummary, type StoppedRun } from './runReport';
import { withoutSecrets } from './secrets';
import type { RequestTarget } from './target';
import { positiveInteger, readConcurrency, runWindow } from './window';

type OperationResult = IDataObject | IDataObject[] | INodeExecutionData[];

/** One operation of one resource, called once per input item with the item's target. */
export type OperationHandler = (
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
) => Promise<OperationResult>;

/** Handlers of one resource, keyed by operation value. */
export type OperationHandlers = Record<string, OperationHandler>;

/** Handlers of every resource of a node, keyed by resource value. */
type ResourceHandlers = Record<string, OperationHandlers>;

interface RunOptions {
	/** The editor's names of the operations (operationLabels of the node's properties), for errors. */
	labels?: OperationLabels;
	/**
	 * Where an item's requests go (target.ts), resolved once per item before its operation runs. Its
	 * tenant (a Managed Tenant's) goes on the item's output items, error items too, as `tenant_id`,
	 * and the error of a stopped run names it per failed item.
	 */
	resolveTarget: (ctx: IExecuteFunctions, itemIndex: number) => Promise<RequestTarget>;
}

const EXECUTION_DATA_KEYS = new Set(['json', 'binary', 'pairedItem', 'error']);

function isExecutionData(value: unknown): value is INodeExecutionData {
	if (!isRecord(value)) return false;
	return (
		typeof value.json === 'object' &&
		value.json !== null &&
		Object.keys(value).every((key) => EXECUTION_DATA_KEYS.has(key))
	);
}

/**
 * Turns what a handler returned into output items paired with the input item, without the values of
 * the service's secrets (secrets.ts): every operation's output passes here.
 */
function toOutputItems(result: OperationResult, itemIndex: number): INodeExecutionData[] {
	const list: unknown[] = Array.isArray(result) ? result : [result];
	return list.map((entry) => {
		if (isExecutionData(entry))
			return { ...entry, json: withoutSecrets(entry.json), pairedItem: { item: itemIndex } };
		return { json: withoutSecrets((entry ?? {}) as IDataObject), pairedItem: { item: itemIndex } };
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

/** What an error item needs to know of the run. */
interface ErrorItemContext {
	/** On Error is "Continue (using error output)". */
	toErrorOutput: boolean;
	/** "Page > Create" */
	operation: string;
	tenant: string | undefined;
}

/** Keeps the entries that say something. */
function compact(entries: IDataObject): IDataObject {
	return Object.fromEntries(
		Object.entries(entries).filter(
			([, value]) => value !== undefined && value !== null && value !== '',
		),
	);
}

/**
 * The error item that takes a failed item's place.
 *
 * Continue (regular output): `{error, details, httpCode}` (+ `tenant_id`), as it always was.
 * Continue (using error output): n8n sends an item to the error output only when its json is
 * `{error, message}` (n8n 1.x: these two keys exactly; 2.x: no keys but error, message, details); an
 * item's own `error` would also do, but n8n 2.x then replaces the json with the bare message, losing
 * the status and the input's fields. So the json is `{message, error: {message, operation, tenant,
 * httpCode, errorCode, description, fields}}`; n8n then merges the input item's fields in.
 */
function errorItem(
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	run: ErrorItemContext,
): INodeExecutionData {
	const context = (error as NodeApiError).context ?? {};
	const description = (error as NodeApiError).description;
	const httpCode = (error as NodeApiError).httpCode;
	if (run.toErrorOutput) {
		const about = compact({
			message: error.message,
			operation: run.operation,
			tenant: run.tenant,
			httpCode,
			errorCode: context.error as string | undefined,
			description,
			fields: context.details as IDataObject | undefined,
		});
		return {
			json: withoutSecrets({ message: error.message, error: about }),
			pairedItem: { item: itemIndex },
		};
	}
	const json: IDataObject = compact({
		tenant_id: run.tenant,
		error: error.message,
		details: (context.details ?? description) as IDataObject | undefined,
		httpCode,
	});
	return { json: withoutSecrets(json), pairedItem: { item: itemIndex } };
}

/** Puts the item's tenant on its output items, unless the service's answer names one itself. */
function withTenant(items: INodeExecutionData[], tenant: string | undefined): INodeExecutionData[] {
	if (!tenant) return items;
	return items.map((item) => ({ ...item, json: { tenant_id: tenant, ...item.json } }));
}

/** Makes sure the error says which item failed, without wrapping n8n errors twice. */
function withItemIndex(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
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
	// Own properties only: an operation named "constructor" is not Object's.
	const own = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key);
	const operations = own(handlers, resource) ? handlers[resource] : undefined;
	const handler = operations && own(operations, operation) ? operations[operation] : undefined;
	return typeof handler === 'function'
		? handler
		: { unsupported: `The operation "${operation}" of resource "${resource}" is not supported` };
}

/** Runs the item's operation on its target; the target is resolved first, once (target.ts). */
async function runItem(
	ctx: IExecuteFunctions,
	handler: OperationHandler | { unsupported: string },
	itemIndex: number,
	resolveTarget: RunOptions['resolveTarget'],
	tenants: Map<number, string>,
): Promise<INodeExecutionData[]> {
	if (typeof handler !== 'function')
		throw new NodeOperationError(ctx.getNode(), handler.unsupported, { itemIndex });
	const target = await resolveTarget(ctx, itemIndex);
	if (target.tenantId) tenants.set(itemIndex, target.tenantId);
	const result = await handler.call(ctx, itemIndex, target);
	return withTenant(toOutputItems(result, itemIndex), target.tenantId);
}

/**
 * The error that stops the node: the first failure in input order, its description extended by what
 * the run did (stoppedRunSummary) so the user knows which items were applied before it stopped.
 */
function stopError(
	failures: Map<number, unknown>,
	run: Omit<StoppedRun, 'failed'>,
): NodeApiError | NodeOperationError {
	const indexes = [...failures.keys()].sort((a, b) => a - b);
	const errors = indexes.map((index) => failures.get(index) as NodeApiError | NodeOperationError);
	const stopped: StoppedRun = {
		...run,
		failed: indexes.map((item, at) => ({ item, message: errors[at].message })),
	};
	const first = errors[0];
	first.description = [first.description, stoppedRunSummary(stopped)].filter(Boolean).join('\n\n');
	first.context.run = stoppedRunData(stopped);
	return first;
}

/**
 * An operation that acts once for the whole input (Notification > Send and Wait for Approval) and
 * failed: every item fails with its error, as the router would route it (error output, error item),
 * or the error stops the node.
 */
export function failEveryItem(
	ctx: IExecuteFunctions,
	error: unknown,
	options: Pick<RunOptions, 'labels'> & { tenant?: string },
): INodeExecutionData[][] {
	const failure = withItemIndex(ctx, error, 0);
	if (!ctx.continueOnFail()) throw failure;
	const run: ErrorItemContext = {
		toErrorOutput: ctx.getNode().onError === 'continueErrorOutput',
		operation: currentOperationLabel(ctx, options.labels ?? {}),
		tenant: options.tenant,
	};
	return [ctx.getInputData().map((_, itemIndex) => errorItem(failure, itemIndex, run))];
}

export async function executeOperations(
	this: IExecuteFunctions,
	handlers: ResourceHandlers,
	options: RunOptions,
): Promise<INodeExecutionData[][]> {
	const itemCount = this.getInputData().length;
	if (itemCount === 0) return [[]];
	const { batchSize, batchInterval, concurrency } = readRunSettings(this);
	const outputsByItem: INodeExecutionData[][] = new Array(itemCount);
	const handler = chooseHandler(this, handlers);
	const continueOnFail = this.continueOnFail();
	const toErrorOutput = this.getNode().onError === 'continueErrorOutput';
	// The tenant of each item whose target resolved (an item that failed before has none).
	const tenants = new Map<number, string>();
	const tenantOf = (itemIndex: number): string | undefined => tenants.get(itemIndex);
	const operation = currentOperationLabel(this, options.labels ?? {});
	const applied: number[] = [];
	// A cancelled execution starts no further item; the ones in flight end their waits and requests.
	const signal = cancelSignalOf(this);
	const cancelled = () => signal?.aborted === true;

	const run = async (itemIndex: number) => {
		try {
			outputsByItem[itemIndex] = await runItem(
				this,
				handler,
				itemIndex,
				options.resolveTarget,
				tenants,
			);
			applied.push(itemIndex);
		} catch (error) {
			const withIndex = withItemIndex(this, error, itemIndex);
			if (!continueOnFail) throw withIndex;
			outputsByItem[itemIndex] = [
				errorItem(withIndex, itemIndex, { toErrorOutput, operation, tenant: tenantOf(itemIndex) }),
			];
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
		const failures = await runWindow(start, end, concurrency, run, cancelled);
		if (failures.size > 0)
			throw stopError(failures, {
				operation,
				itemCount,
				applied,
				tenantOf,
			});
	}

	return [outputsByItem.flat()];
}
