/**
 * Whether an item is a dry run, decided once here for every operation that has a Dry Run parameter:
 * the item's target carries it (target.ts), the operation previews, and the sender (transport.ts)
 * refuses every request that is not a read.
 */
import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';

/** What an expression in Dry Run may give: these mean a dry run, those a real one. */
const DRY = new Set(['true', '1']);
const REAL = new Set(['false', '0', '']);

/**
 * Whether the item is a dry run. An expression may give a boolean, a number or a string: `true`,
 * `"true"`, `1` mean a dry run; `false`, `"false"`, `0`, empty a real one; anything else fails the
 * item (fails closed) rather than guess and write.
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
