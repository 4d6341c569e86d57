/**
 * Checks of parameter values made before any request is sent, so a bad input fails its item with
 * an error that names the parameter and nothing reaches the service.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { describeType, isPlainObject } from './json';

type JsonShape = 'array' | 'object';

/** What a JSON parameter of that shape holds once checked. */
type JsonOf<Shape extends JsonShape> = Shape extends 'array' ? IDataObject[] : IDataObject;

/**
 * Parses a value that is JSON text or already an object/array. `label` names it in errors
 * ("Templates must be a JSON array of objects").
 */
export function parseJsonValue<Shape extends JsonShape>(
	ctx: IExecuteFunctions,
	value: unknown,
	label: string,
	shape: Shape,
	itemIndex: number,
): JsonOf<Shape> {
	const expected = shape === 'array' ? 'a JSON array of objects' : 'a JSON object';
	let parsed: unknown = value;
	if (typeof value === 'string') {
		const text = value.trim();
		if (!text) {
			throw new NodeOperationError(ctx.getNode(), `${label} must be ${expected}; it is empty`, {
				itemIndex,
			});
		}
		try {
			parsed = JSON.parse(text);
		} catch (error) {
			throw new NodeOperationError(
				ctx.getNode(),
				`${label} must be ${expected}; it is not valid JSON (${(error as Error).message})`,
				{ itemIndex },
			);
		}
	}
	if (shape === 'array') {
		if (!Array.isArray(parsed)) {
			throw new NodeOperationError(ctx.getNode(), `${label} must be ${expected}`, {
				itemIndex,
				description: `Got ${describeType(parsed)}.`,
			});
		}
		const badIndex = parsed.findIndex((entry) => !isPlainObject(entry));
		if (badIndex !== -1) {
			throw new NodeOperationError(ctx.getNode(), `${label} must be ${expected}`, {
				itemIndex,
				description: `Entry ${badIndex} is ${describeType(parsed[badIndex])}.`,
			});
		}
		return parsed as JsonOf<Shape>;
	}
	if (!isPlainObject(parsed)) {
		throw new NodeOperationError(ctx.getNode(), `${label} must be ${expected}`, {
			itemIndex,
			description: `Got ${describeType(parsed)}.`,
		});
	}
	return parsed as JsonOf<Shape>;
}

/** A required string parameter, trimmed; empty fails the item naming the parameter. */
export function requireString(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
	label: string,
): string {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	if (!value) {
		throw new NodeOperationError(ctx.getNode(), `${label} is required`, { itemIndex });
	}
	return value;
}

/** A trimmed string parameter; empty means "not given". */
export function optionalString(
	ctx: IExecuteFunctions,
	name: string,
	itemIndex: number,
): string | undefined {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
	return value || undefined;
}
