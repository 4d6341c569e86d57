import { Type } from '@sinclair/typebox';
import { bannerSchema, pageUrlSchema, templatesSchema } from './common';
import { pageAnswer } from './pages';

export const contentBody = Type.Object(
	{
		url: pageUrlSchema,
		templates: templatesSchema,
		banner: Type.Optional(bannerSchema),
		if_updated_at: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 64,
				description:
					"A precondition: the page's updated_at as the caller last read it. The update is made only if the page still has it; otherwise 412 precondition_failed, nothing written, and details.updated_at holds the page's current one.",
				'x-extension': true,
			}),
		),
	},
	{ additionalProperties: false },
);

export const contentResponses = { 200: pageAnswer } as const;
