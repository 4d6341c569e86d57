/**
 * Tells a repeated delivery from a new one (delivery is at least once). Automatic registration claims
 * the submission on the site, which holds across n8n processes and restarts; manual registration (no
 * API credential) and a service without the claims endpoint fall back to this process's memory (best
 * effort: one process, until it restarts).
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import type { SiteCredentialType } from '../shared/transport';
import { claimOnSite, consumerOf } from './claim';
import { recordInProcess } from './recentSubmissions';

/** Whether the submission is new: claims it (see above) and answers true for the first claim only. */
export async function claimSubmission(
	ctx: IWebhookFunctions,
	key: string,
	siteCredential: SiteCredentialType | undefined,
): Promise<boolean> {
	if (siteCredential !== undefined) {
		const outcome = await claimOnSite(ctx, siteCredential, key);
		if (outcome !== 'unsupported') return outcome === 'new';
		ctx.logger.warn(
			'Site Management Contact Form Trigger: the service has no claims endpoint (POST /api/contact-form/claims); repeats are recognised within this n8n process only',
		);
	}
	return recordInProcess(consumerOf(ctx), key);
}
