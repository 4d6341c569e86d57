/**
 * What a run stopped at a failure (On Error: Stop) had done: which items were applied, which failed
 * and why, which were never started. Items run concurrently, so items after the failing one may
 * already have been applied; the error says so instead of leaving the user guessing.
 */
import type { IDataObject } from 'n8n-workflow';

/** The failures listed one by one; more are counted (at most Options > Concurrency can fail at once). */
const LISTED_FAILURES = 20;

export interface StoppedRun {
	/** "Page > Create" */
	operation: string;
	itemCount: number;
	applied: number[];
	/** Failed item index to its message, in input order. */
	failed: Array<{ item: number; message: string }>;
	/** The tenant of an item, where the node knows it. */
	tenantOf: (itemIndex: number) => string | undefined;
}

/** "0-2, 4, 6-9" for sorted indexes. */
function indexRanges(indexes: number[]): string {
	const ranges: string[] = [];
	for (let at = 0; at < indexes.length;) {
		let end = at;
		while (end + 1 < indexes.length && indexes[end + 1] === indexes[end] + 1) end++;
		ranges.push(end === at ? `${indexes[at]}` : `${indexes[at]}-${indexes[end]}`);
		at = end + 1;
	}
	return ranges.join(', ');
}

function itemName(run: StoppedRun, item: number): string {
	const tenant = run.tenantOf(item);
	return tenant ? `item ${item} (tenant "${tenant}")` : `item ${item}`;
}

function notStarted(run: StoppedRun): number[] {
	const done = new Set([...run.applied, ...run.failed.map((failure) => failure.item)]);
	return Array.from({ length: run.itemCount }, (_, index) => index).filter((i) => !done.has(i));
}

/** The lines the stopping error adds to its description. */
export function stoppedRunSummary(run: StoppedRun): string {
	if (run.itemCount === 1) return `${run.operation} failed for ${itemName(run, 0)}.`;
	const waiting = notStarted(run);
	const applied = [...run.applied].sort((a, b) => a - b);
	const lines = [
		`${run.operation} stopped at the first failure: ${applied.length} of ${run.itemCount} items applied, ${run.failed.length} failed, ${waiting.length} not started.`,
	];
	if (applied.length) lines.push(`Applied: items ${indexRanges(applied)}.`);
	for (const failure of run.failed.slice(0, LISTED_FAILURES))
		lines.push(`Failed: ${itemName(run, failure.item)}: ${failure.message}`);
	if (run.failed.length > LISTED_FAILURES)
		lines.push(`Failed: ${run.failed.length - LISTED_FAILURES} more items.`);
	if (waiting.length) lines.push(`Not started: items ${indexRanges(waiting)}.`);
	return lines.join('\n');
}

/** The same, as data on the error's context (for a workflow's Error Trigger or a test). */
export function stoppedRunData(run: StoppedRun): IDataObject {
	return {
		operation: run.operation,
		items: run.itemCount,
		applied: [...run.applied].sort((a, b) => a - b),
		failed: run.failed.map((failure) => ({
			...failure,
			tenant: run.tenantOf(failure.item) ?? null,
		})),
		notStarted: notStarted(run),
	};
}
