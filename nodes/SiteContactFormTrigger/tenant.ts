/**
 * Which tenant's submissions the trigger takes: a delivery speaks for the tenant its secret was
 * registered for (automatic registration gives each tenant served its own secret) and for no other.
 * Its `tenant_id` is checked against that before anything runs (a holder of one tenant's token can
 * read that tenant's webhook URL and secret and could otherwise post a submission naming any tenant).
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import { resolveTenantTarget } from '../shared/target';
import { siteRequest } from '../shared/transport';

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
 * scope); for a Tenant Token, the one the site names (the sitemap's tenant_id, an extension of the
 * reference server), else the credential's Tenant ID. The two must agree where both say.
 */
export async function registrationTenant(ctx: IHookFunctions): Promise<string> {
	const target = await resolveTenantTarget(ctx);
	if (target.tenantId !== undefined) return target.tenantId;
	const stated = String(target.credentials.tenantId ?? '').trim();
	const sitemap = await siteRequest.call(
		ctx,
		{ method: 'POST', path: '/api/sitemap', body: {} },
		{ itemIndex: 0, target },
	);
	const told = isPlainObject(sitemap) ? sitemap.tenant_id : undefined;
	const siteSays = typeof told === 'string' ? told : '';
	if (siteSays && stated && siteSays !== stated) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Tenant Token belongs to tenant "${siteSays}", but the credential's Tenant ID says "${stated}"`,
			{ description: "Correct the credential's Tenant ID (or its token)." },
		);
	}
	const tenantId = siteSays || stated;
	if (!tenantId) {
		throw new NodeOperationError(
			ctx.getNode(),
			"The trigger cannot tell which tenant this Tenant Token belongs to: fill in the credential's Tenant ID",
			{
				description:
					'The trigger refuses deliveries naming another tenant, so it must know its own. This service does not say (no tenant_id in its sitemap).',
			},
		);
	}
	return tenantId;
}
