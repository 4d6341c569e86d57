/**
 * Dry Run of a write (Setting > Update, Page > Create and Delete, Content > Update, Variable > Set
 * and Delete, AI > Apply Proposal): the operation reads what it needs, sends nothing, and passes its
 * input item on with a preview under `dryRun`, so the same item can go on to the real run after a
 * review or an approval.
 */
import {
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeProperties,
} from 'n8n-workflow';

import { stableStringify } from '../../shared/json';

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
