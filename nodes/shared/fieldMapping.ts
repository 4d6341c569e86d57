/**
 * Fields taken from items the n8n way: n8n's resource mapper (*Map Automatically* / *Map Each Column
 * Manually*) over the fields the service names, for the operations that create or set a record from
 * an item (node version 2 and later). One place decides what a mapped field may hold, for both modes:
 * its type, whether it is required, and what happens to input fields the service does not have.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	ResourceMapperField,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { describeType, isPlainObject } from './json';

/** The node version from which these operations take their fields through the resource mapper. */
export const FIELD_MAPPING_VERSION = 2;

/** Shows a property only in node versions before / from {@link FIELD_MAPPING_VERSION}. */
const beforeFieldMapping = {
	show: { '@version': [{ _cnd: { lt: FIELD_MAPPING_VERSION } }] },
};
const withFieldMapping = {
	show: { '@version': [{ _cnd: { gte: FIELD_MAPPING_VERSION } }] },
};

/**
 * An operation's field properties by node version: `perParameter` (one parameter per field) before
 * {@link FIELD_MAPPING_VERSION}, the resource mapper over the fields `methodName` lists from it.
 */
export function fieldsByVersion(
	perParameter: INodeProperties[],
	methodName: string,
	record: string,
): INodeProperties[] {
	return [
		...updateDisplayOptions(beforeFieldMapping, perParameter),
		...updateDisplayOptions(withFieldMapping, fieldMappingProperties(methodName, record)),
	];
}

/**
 * The record's fields for an item as the node's version takes them: mapped and checked against
 * `fields`, or read by `fromParameters` (version 1).
 */
export function recordFields(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: readonly ServiceField[],
	fromParameters: (ctx: IExecuteFunctions, itemIndex: number) => IDataObject,
): IDataObject {
	return ctx.getNode().typeVersion >= FIELD_MAPPING_VERSION
		? mappedFields(ctx, itemIndex, fields)
		: fromParameters(ctx, itemIndex);
}

/** A field of a service record, named as the service names it. */
export interface ServiceField {
	id: string;
	displayName: string;
	type: 'string' | 'boolean';
	/** Must be in the item (or mapped); a required text must not be blank unless `keepEmpty`. */
	required?: boolean;
	/**
	 * An empty text is a value to send (a variable's value). Otherwise texts are sent trimmed, and an
	 * empty one is left out (or fails a required field).
	 */
	keepEmpty?: boolean;
}

/** The resource mapper's modes as n8n stores them. */
const AUTO_MAP = 'autoMapInputData';
const MAP_EACH_FIELD = 'defineBelow';

const COLUMNS = 'columns';
const UNKNOWN_FIELDS = 'unknownFields';

/** What the editor's field loader answers: the record's fields, in the service's names. */
export function resourceMapperFields(fields: readonly ServiceField[]): ResourceMapperFields {
	return {
		fields: fields.map((field): ResourceMapperField => ({
			id: field.id,
			displayName: field.displayName,
			required: field.required === true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: field.type,
		})),
	};
}

/**
 * The resource mapper parameter and its companion, for an operation whose fields the method
 * `methodName` (in the node's `methods.resourceMapping`) lists.
 */
function fieldMappingProperties(methodName: string, record: string): INodeProperties[] {
	return [
		{
			displayName: 'Fields',
			name: COLUMNS,
			type: 'resourceMapper',
			noDataExpression: true,
			default: { mappingMode: MAP_EACH_FIELD, value: null },
			required: true,
			typeOptions: {
				resourceMapper: {
					resourceMapperMethod: methodName,
					mode: 'add',
					fieldWords: { singular: 'field', plural: 'fields' },
					addAllFields: true,
					multiKeyMatch: false,
					supportAutoMap: true,
				},
			},
			description: `The fields of the ${record}. Map Automatically takes each input item's fields named as the service names them.`,
		},
		{
			displayName: 'Input Fields the Service Does Not Have',
			name: UNKNOWN_FIELDS,
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Ignore',
					value: 'ignore',
					description: 'Send only the fields the service has (e.g. leave out a row number)',
				},
				{
					name: 'Refuse',
					value: 'refuse',
					description: 'Fail the item, naming the field',
				},
			],
			default: 'ignore',
			// Always shown: n8n 1.x cannot resolve a display condition on the mapper's mode.
			description:
				"With Map Automatically: what to do with an item's fields that are not the service's",
		},
	];
}

function fieldError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: ServiceField,
	problem: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`Field "${field.id}" (${field.displayName}) of item ${itemIndex} ${problem}`,
		{ itemIndex, ...(description ? { description } : {}) },
	);
}

/** The value a field may be sent with, or undefined to leave it out; a wrong type fails the item. */
function checkedValue(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: ServiceField,
	value: unknown,
): string | boolean | undefined {
	if (value === undefined || value === null || (field.type === 'boolean' && value === '')) {
		if (field.required) throw fieldError(ctx, itemIndex, field, 'is required');
		return undefined;
	}
	if (field.type === 'boolean') {
		if (typeof value === 'boolean') return value;
		const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
		if (text === 'true' || text === 'false') return text === 'true';
		throw fieldError(
			ctx,
			itemIndex,
			field,
			'must be true or false',
			`Got ${describeType(value)}${typeof value === 'string' ? ` "${value}"` : ''}.`,
		);
	}
	// A number in a text field is a spreadsheet cell such as a year: sent as its text.
	const text =
		typeof value === 'string'
			? value
			: typeof value === 'number' && Number.isFinite(value)
				? String(value)
				: undefined;
	if (text === undefined) {
		throw fieldError(ctx, itemIndex, field, 'must be text', `Got ${describeType(value)}.`);
	}
	if (field.keepEmpty) return text;
	const trimmed = text.trim();
	if (!trimmed) {
		if (field.required) throw fieldError(ctx, itemIndex, field, 'is required');
		return undefined;
	}
	return trimmed;
}

/**
 * The record's fields for an item: from the item itself (Map Automatically) or from the mapped
 * values (Map Each Column Manually), each checked against `fields`.
 */
function mappedFields(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fields: readonly ServiceField[],
): IDataObject {
	const mode = ctx.getNodeParameter(`${COLUMNS}.mappingMode`, itemIndex) as string;
	let source: unknown;
	if (mode === AUTO_MAP) {
		source = ctx.getInputData()[itemIndex]?.json ?? {};
		if (ctx.getNodeParameter(UNKNOWN_FIELDS, itemIndex, 'ignore') === 'refuse') {
			const known = new Set(fields.map((field) => field.id));
			const unknown = Object.keys(source as IDataObject).filter((key) => !known.has(key));
			if (unknown.length) {
				throw new NodeOperationError(
					ctx.getNode(),
					`Item ${itemIndex} has a field the service does not have: "${unknown[0]}"`,
					{
						itemIndex,
						description: `The fields are ${fields.map((field) => `"${field.id}"`).join(', ')}. Other fields found: ${unknown.map((key) => `"${key}"`).join(', ')}. Remove them, or set Input Fields the Service Does Not Have to Ignore.`,
					},
				);
			}
		}
	} else if (mode === MAP_EACH_FIELD) {
		source = ctx.getNodeParameter(`${COLUMNS}.value`, itemIndex, {}) ?? {};
	} else {
		throw new NodeOperationError(ctx.getNode(), `Fields: unknown mapping mode "${mode}"`, {
			itemIndex,
		});
	}
	if (!isPlainObject(source)) {
		throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex} is not an object of fields`, {
			itemIndex,
		});
	}
	const body: IDataObject = {};
	for (const field of fields) {
		const value = checkedValue(ctx, itemIndex, field, (source as IDataObject)[field.id]);
		if (value !== undefined) body[field.id] = value;
	}
	return body;
}
