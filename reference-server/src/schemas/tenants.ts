import { Type } from '@sinclair/typebox';
import { errorResponses, fqdnSchema, messageBody, tenantIdSchema } from './common';

export const createTenantBody = { id: tenantIdSchema, fqdn: Type.Optional(fqdnSchema) };
export const updateTenantBody = {
	old_id: Type.Optional(tenantIdSchema),
	id: tenantIdSchema,
	fqdn: Type.Optional(fqdnSchema),
};
export const deleteTenantBody = { id: tenantIdSchema };

export const tenantOkResponses = { 200: messageBody, ...errorResponses };
