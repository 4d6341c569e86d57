/**
 * Dry Run of a write (Settings > Update, Page > Create and Delete, Content > Update, Variable > Set
 * and Delete, AI > Apply Proposal): the operation reads what it needs, sends nothing, and passes its
 * input item on with a preview under `dryRun`, so the same item can go on to the real run after a
 * review or an approval.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { stableStringify } from '../actions/ai/diff';

/** The Dry Run parameter; `reads` says what the operation still reads, e.g. "the page". */
export function dryRunProperty(reads: string): INodeProperties {
	return {
		displayName: 'Dry Run',
		name: 'dryRun',
		type: 'boolean',
		default: false,
		description: `Whether to only read ${reads} and show what would change, sending no change. The input item is passed through with the preview under "dryRun".`,
	};
}

/** What an expression in Dry Run may give: these mean a dry run, those a real one. */
const DRY = new Set(['true', '1']);
const REAL = new Set(['false', '0', '']);

/**
 * Whether the item is a dry run, decided here for every operation that has one. An expression may
 * give a boolean, a number or a string: `true`, `"true"`, `1` mean a dry run; `false`, `"false"`, `0`,
 * empty a real one; anything else fails the item (fails closed) rather than guess and write.
 */
export function isDryRun(ctx: IExecuteFunctions, itemIndex: number): boolean {
	const value = ctx.getNodeParameter('dryRun', itemIndex, false) as unknown;
	if (typeof value === 'boolean') return value;
	if (value === undefined || value === null) return false;
	if (typeof value === 'number' || typeof value === 'string') {
		const word = String(value).trim().toLowerCase();
		if (DRY.has(word)) return true;
		if (REAL.has(word)) return false;
	}
	const shown = JSON.stringify(value) ?? String(value);
	throw new NodeOperationError(
		ctx.getNode(),
		`Dry Run must be true or false, not ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}`,
		{
			itemIndex,
			description:
				'true, "true" or 1 make a dry run; false, "false", 0 or empty a real one. Nothing was sent.',
		},
	);
}

/** The input item, passed on with the preview under `dryRun`. */
export function dryRunItem(
	ctx: IExecuteFunctions,
	itemIndex: number,
	preview: IDataObject,
): INodeExecutionData[] {
	const input = ctx.getInputData()[itemIndex];
	return [
		{
			json: { ...input.json, dryRun: preview },
			...(input.binary ? { binary: input.binary } : {}),
		},
	];
}

/** Whether two values differ (key order of objects does not count). */
export function differs(before: unknown, after: unknown): boolean {
	return stableStringify(before) !== stableStringify(after);
}

/** `{field: {before, after, changed}}` for each field of `proposed`, against `current`. */
export function fieldChanges(current: IDataObject, proposed: IDataObject): IDataObject {
	const changes: IDataObject = {};
	for (const [field, after] of Object.entries(proposed)) {
		const before = current[field] ?? null;
		changes[field] = { before, after, changed: differs(before, after) };
	}
	return changes;
}

/** The changes with their summary: `{result: "would update" | "unchanged", changes}`. */
export function withResult(changes: IDataObject): IDataObject {
	const changed = Object.values(changes).some((change) => (change as IDataObject).changed);
	return { result: changed ? 'would update' : 'unchanged', changes };
}
