/**
 * Which site a poll watched: the tenant and the tenant base URL. Every item says it, and the stored
 * state belongs to it, so that a credential edited to another site starts afresh there instead of
 * reporting the difference between two sites as changes.
 */
import { createHash } from 'crypto';

import type { RequestTarget } from '../shared/target';
import { withoutTrailingSlashes, withoutUserInfo } from '../shared/url';

interface WatchedSite {
	/** The tenant: the credential's Tenant ID, or what the sitemap says; null when neither tells. */
	tenant_id: string | null;
	/** The tenant base URL, without any user:password part. */
	site: string;
	/** What the stored state is kept for (a hash of both). */
	key: string;
}

/** The site of the poll's target: a Managed Tenant's tenant (within its scope), else the sitemap's. */
export function watchedSite(target: RequestTarget, sitemapTenant: string | undefined): WatchedSite {
	const site = withoutTrailingSlashes(withoutUserInfo(target.baseUrl));
	const tenantId = target.tenantId || sitemapTenant || null;
	const key = createHash('sha256')
		.update(JSON.stringify([site, tenantId]))
		.digest('base64')
		.slice(0, 16);
	return { tenant_id: tenantId, site, key };
}
