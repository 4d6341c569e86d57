/**
 * A JSON parameter that may be left empty. It is a multi-line text field, not n8n's `json` type:
 * n8n's JSON editor marks an empty field with "Unexpected end of JSON input", which reads as an error
 * where "empty" means "not sent". The node parses the text itself (validation.ts), naming the field.
 */
import type { INodeProperties } from 'n8n-workflow';

export function jsonTextField(rows: number): Pick<INodeProperties, 'type' | 'typeOptions'> {
	return { type: 'string', typeOptions: { rows } };
}
