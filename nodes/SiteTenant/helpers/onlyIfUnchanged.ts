/**
 * Only If Unchanged: a write approved from a Dry Run preview happens only if the site still has what
 * the preview saw (Setting > Update, Variable > Set and Delete, Page > Delete). Read, compare, write:
 * the service has no precondition on these requests, so an edit landing between the read and the
 * write is not caught (docs/fleet-rollout.md). Content > Update and AI > Apply Proposal carry the
 * page's version instead, which the service checks atomically; Page > Create never replaces a page.
 */
import {
	NodeOperationError,
	type IDataObject,
	type IExecuteFunctions,
	type INodeProperties,
} from 'n8n-workflow';

import { isPlainObject } from '../../shared/json';
import { HIDDEN_VALUE, withoutSecrets } from '../../shared/secrets';
import { differs } from './dryRun';

/** The Only If Unchanged switch and the values it compares (`reads`: e.g. "settings have"). */
export function onlyIfUnchangedProperties(reads: string): INodeProperties[] {
	return [
		{
			displayName: 'Only If Unchanged',
			name: 'onlyIfUnchanged',
			type: 'boolean',
			default: false,
			description: `Whether to write only if the site's ${reads} still what the preview saw (Previewed Values); otherwise the item fails naming the field, and nothing is written`,
		},
		{
			displayName: 'Previewed Values',
			name: 'previewedValues',
			type: 'json',
			default: '={{ $json.dryRun }}',
			description:
				'The Dry Run preview of this item (its "dryRun" output), or an object of the values expected now, e.g. {"google_code": "G-OLD"}',
			displayOptions: { show: { onlyIfUnchanged: [true] } },
		},
	];
}

function unchangedError(ctx: IExecuteFunctions, itemIndex: number, message: string) {
	return new NodeOperationError(
		ctx.getNode(),
		`Only If Unchanged: ${message}; nothing was written`,
		{
			itemIndex,
		},
	);
}

/** A preview that saw nothing there (Variable > Set of a new key): the write expects it absent still. */
const ABSENT = Symbol('absent');

/**
 * What the preview saw: `{field: value}` from its `changes` (each field's `before`), from its
 * `current` record (a delete's), ABSENT for a preview that would create, or a plain object as given.
 */
function previewedValues(ctx: IExecuteFunctions, itemIndex: number): IDataObject | typeof ABSENT {
	let value = ctx.getNodeParameter('previewedValues', itemIndex, undefined) as unknown;
	if (typeof value === 'string') {
		try {
			value = value.trim() === '' ? undefined : (JSON.parse(value) as unknown);
		} catch {
			throw unchangedError(ctx, itemIndex, 'Previewed Values is not JSON');
		}
	}
	if (!isPlainObject(value))
		throw unchangedError(
			ctx,
			itemIndex,
			'Previewed Values is empty: give it the Dry Run preview of this item (its "dryRun" output)',
		);
	if (value.result === 'would create') return ABSENT;
	if (isPlainObject(value.current)) return value.current;
	if (!isPlainObject(value.changes)) return value;
	return Object.fromEntries(
		Object.entries(value.changes).map(([field, change]) => [
			field,
			isPlainObject(change) ? change.before : undefined,
		]),
	);
}

const shown = (field: string, value: unknown) =>
	JSON.stringify((withoutSecrets({ [field]: value ?? null }) as IDataObject)[field]);

/** Whether the item's write waits on Only If Unchanged. */
export const onlyIfUnchanged = (ctx: IExecuteFunctions, itemIndex: number): boolean =>
	ctx.getNodeParameter('onlyIfUnchanged', itemIndex, false) === true;

/**
 * Fails the item unless each of `fields` has, in `current` (undefined: the site has no such record
 * now), the value the preview saw. A previewed secret is masked in the preview and cannot be
 * compared: that fails too. `what` names the record in errors ("variable \"k\"").
 */
export function assertUnchanged(
	ctx: IExecuteFunctions,
	itemIndex: number,
	current: IDataObject | undefined,
	fields: string[],
	what: string,
): void {
	const previewed = previewedValues(ctx, itemIndex);
	if (previewed === ABSENT) {
		if (current !== undefined)
			throw unchangedError(ctx, itemIndex, `${what} exists on the site now, the preview saw none`);
		return;
	}
	if (current === undefined)
		throw unchangedError(ctx, itemIndex, `${what} is no longer on the site`);
	for (const field of fields) {
		if (!(field in previewed) || previewed[field] === undefined)
			throw unchangedError(ctx, itemIndex, `the preview has no value for ${field}`);
		if (JSON.stringify(previewed[field] ?? null).includes(HIDDEN_VALUE))
			throw unchangedError(ctx, itemIndex, `${field} is a secret, masked in the preview`);
		if (differs(current[field] ?? null, previewed[field]))
			throw unchangedError(
				ctx,
				itemIndex,
				`${field} is ${shown(field, current[field])} on the site, not the previewed ${shown(field, previewed[field])}`,
			);
	}
}
