/**
 * Which site a poll watched: the tenant and the tenant base URL. Every item says it, and the stored
 * state belongs to it, so that a credential edited to another site starts afresh there instead of
 * reporting the difference between two sites as changes.
 */
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IPollFunctions } from 'n8n-workflow';

import { resolveItemTenant, tenantCredentialType } from '../shared/target';
import { withoutTrailingSlashes, withoutUserInfo } from '../shared/url';

interface WatchedSite {
	/** The tenant: the credential's Tenant ID, or what the sitemap says; null when neither tells. */
	tenant_id: string | null;
	/** The tenant base URL, without any user:password part. */
	site: string;
	/** What the stored state is kept for (a hash of both). */
	key: string;
}

export async function watchedSite(
	ctx: IPollFunctions,
	sitemapTenant: string | undefined,
): Promise<WatchedSite> {
	const credentialType = tenantCredentialType(ctx);
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(credentialType);
	const site = withoutTrailingSlashes(withoutUserInfo(String(credentials.baseUrl ?? '').trim()));
	// A Managed Tenant credential: the tenant its requests went to (target.ts), within its scope.
	const fromCredential = await resolveItemTenant(ctx, 0);
	const tenantId = fromCredential || sitemapTenant || null;
	const key = createHash('sha256')
		.update(JSON.stringify([site, tenantId]))
		.digest('base64')
		.slice(0, 16);
	return { tenant_id: tenantId, site, key };
}
