/**
 * Which tenant's submissions the trigger takes: a delivery speaks for the tenant the trigger was
 * registered for and for no other. Its `tenant_id` is checked against that set before anything runs
 * (a holder of one tenant's token can read that tenant's webhook URL and secret and could otherwise
 * post a submission naming any tenant).
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import { resolveItemTenant, tenantCredentialType } from '../shared/target';
import { siteApiRequest } from '../shared/transport';

/** Why a delivery may not start the workflow (undefined when its tenant is expected). */
export function deliveryTenantProblem(
	body: IDataObject,
	expected: ReadonlySet<string>,
): { status: 400 | 403; message: string } | undefined {
	const tenantId = body.tenant_id;
	if (typeof tenantId !== 'string' || tenantId === '') {
		return { status: 400, message: 'tenant_id must be a non-empty string.' };
	}
	if (!expected.has(tenantId)) {
		return {
			status: 403,
			message: 'This webhook takes submissions of another tenant than the one named.',
		};
	}
	return undefined;
}

/**
 * The tenant an automatic registration registers for: a Managed Tenant credential's (within its
 * scope), else the one the site names for the Tenant Token (the sitemap's tenant_id, an extension of
 * the reference server). A site that does not say cannot be registered automatically.
 */
export async function registrationTenant(ctx: IHookFunctions): Promise<string> {
	const managed = await resolveItemTenant(ctx, 0);
	if (managed !== undefined) return managed;
	const sitemap = await siteApiRequest.call(
		ctx,
		tenantCredentialType(ctx),
		{ method: 'POST', path: '/api/sitemap', body: {} },
		{ itemIndex: 0 },
	);
	const tenantId = isPlainObject(sitemap) ? sitemap.tenant_id : undefined;
	if (typeof tenantId !== 'string' || tenantId === '') {
		throw new NodeOperationError(
			ctx.getNode(),
			'The site does not say which tenant this Tenant Token belongs to, so the trigger could not check the tenant of its submissions',
			{
				description:
					'Use a Managed Tenant credential (its Tenant ID names the tenant), or Manual registration with the Tenant ID filled in on the Contact Form Secret credential.',
			},
		);
	}
	return tenantId;
}
