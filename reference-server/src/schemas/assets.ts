import { Type } from '@sinclair/typebox';
import { responseObject } from './common';

export const uploadResponses = {
	201: responseObject({
		url: { type: 'string', description: 'absolute URL; serves the file without a token' },
		name: { type: 'string' },
		size: { type: 'integer', description: 'bytes' },
		mime_type: { type: 'string' },
	}),
} as const;

export const downloadParams = Type.Object({
	assetId: Type.String({ maxLength: 64 }),
	fileName: Type.String({ maxLength: 255 }),
});

export const downloadResponses = {
	200: {
		description: 'The file, with its stored content type',
		content: { '*/*': { schema: { type: 'string', contentEncoding: 'binary' } } },
	},
} as const;
