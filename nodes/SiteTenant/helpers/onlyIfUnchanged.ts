/**
 * Only If Unchanged: a write approved from a Dry Run preview happens only if the site still has the
 * values the preview saw. Read, compare, write: the service has no precondition on these requests,
 * so an edit landing between the read and the write is not caught (docs/fleet-rollout.md).
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

/** The Only If Unchanged switch and the values it compares (`reads`: e.g. "settings"). */
export function onlyIfUnchangedProperties(reads: string): INodeProperties[] {
	return [
		{
			displayName: 'Only If Unchanged',
			name: 'onlyIfUnchanged',
			type: 'boolean',
			default: false,
			description: `Whether to write only if the site's ${reads} still have the values the preview saw (Previewed Values); otherwise the item fails naming the field, and nothing is written`,
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

/** `{field: value}` from a preview's `changes` (each field's `before`) or from a plain object. */
function previewedValues(ctx: IExecuteFunctions, itemIndex: number): IDataObject {
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
 * Fails the item unless every field `body` writes has, in `current`, the value the preview saw.
 * A previewed secret is masked in the preview and cannot be compared: that fails too.
 */
export function assertUnchanged(
	ctx: IExecuteFunctions,
	itemIndex: number,
	current: IDataObject,
	body: IDataObject,
): void {
	const previewed = previewedValues(ctx, itemIndex);
	for (const field of Object.keys(body)) {
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
