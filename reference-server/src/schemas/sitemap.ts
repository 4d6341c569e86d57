import { Type } from '@sinclair/typebox';
import { localeSchema } from './common';

export const sitemapBody = Type.Object(
	{ locale: Type.Optional(localeSchema) },
	{ additionalProperties: false },
);

export const sitemapResponses = {
	200: {
		type: 'object',
		required: ['generated_at', 'pages'],
		properties: {
			generated_at: { type: 'string', format: 'date-time' },
			tenant_id: {
				type: 'string',
				description: 'the tenant the token reached',
				'x-extension': true,
			},
			pages: {
				type: 'array',
				items: {
					type: 'object',
					required: ['url', 'name', 'locale', 'updated_at'],
					properties: {
						url: { type: 'string' },
						name: { type: 'string' },
						locale: { type: 'string' },
						updated_at: { type: 'string', format: 'date-time' },
					},
				},
			},
		},
	},
} as const;
