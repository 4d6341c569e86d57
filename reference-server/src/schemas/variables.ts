import { Type } from '@sinclair/typebox';
import { dataList, messageBody, patternWithinLength, responseObject, strictObject } from './common';

const keySchema = Type.String({
	minLength: 1,
	...patternWithinLength({
		maxLength: 128,
		pattern: '^[A-Za-z_][A-Za-z0-9_.-]*$',
		problem:
			'must be 1 to 128 characters of letters, digits, _, . and -, starting with a letter or _',
	}),
});

const variableSchema = responseObject({ key: { type: 'string' }, value: { type: 'string' } });

export const putVariableBody = strictObject({
	key: keySchema,
	value: Type.String({ maxLength: 65536 }),
});

export const deleteVariableBody = strictObject({ key: keySchema });

export const listVariablesResponses = { 200: dataList(variableSchema) } as const;

export const putVariableResponses = {
	200: responseObject({ message: { type: 'string' }, variable: variableSchema }),
} as const;

export const deleteVariableResponses = { 200: messageBody } as const;
