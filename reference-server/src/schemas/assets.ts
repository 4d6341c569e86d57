import { Type } from '@sinclair/typebox';

export const uploadResponses = {
	201: {
		type: 'object',
		required: ['url', 'name', 'size', 'mime_type'],
		properties: {
			url: { type: 'string', description: 'absolute URL; serves the file without a token' },
			name: { type: 'string' },
			size: { type: 'integer', description: 'bytes' },
			mime_type: { type: 'string' },
		},
	},
} as const;

export const downloadParams = Type.Object({
	assetId: Type.String({ maxLength: 64 }),
	fileName: Type.String({ maxLength: 255 }),
});

export const downloadResponses = {
	200: {
		description: 'the file, with its stored content type',
		type: 'string',
		contentEncoding: 'binary',
	},
} as const;
