import { Type } from '@sinclair/typebox';
import { messageBody, patternWithinLength } from './common';

const keySchema = Type.String({
	minLength: 1,
	...patternWithinLength({
		maxLength: 128,
		pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$',
		problem:
			'must be 1 to 128 characters of letters, digits, _, . and -, starting with a letter or _',
	}),
});

const variableSchema = {
	type: 'object',
	required: ['key', 'value'],
	properties: { key: { type: 'string' }, value: { type: 'string' } },
} as const;

export const putVariableBody = Type.Object(
	{ key: keySchema, value: Type.String({ maxLength: 65536 }) },
	{ additionalProperties: false },
);

export const deleteVariableBody = Type.Object({ key: keySchema }, { additionalProperties: false });

export const listVariablesResponses = {
	200: {
		type: 'object',
		required: ['data'],
		properties: { data: { type: 'array', items: variableSchema } },
	},
} as const;

export const putVariableResponses = {
	200: {
		type: 'object',
		required: ['message', 'variable'],
		properties: { message: { type: 'string' }, variable: variableSchema },
	},
} as const;

export const deleteVariableResponses = { 200: messageBody } as const;
