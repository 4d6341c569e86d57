import { Type } from '@sinclair/typebox';
import { bannerSchema, errorResponses, pageUrlSchema, templatesSchema } from './common';
import { pageAnswer } from './pages';

export const contentBody = Type.Object(
	{ url: pageUrlSchema, templates: templatesSchema, banner: Type.Optional(bannerSchema) },
	{ additionalProperties: false },
);

export const contentResponses = { 200: pageAnswer, ...errorResponses } as const;
