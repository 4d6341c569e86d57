/**
 * Claims a submission on the site before the workflow starts (`POST /api/contact-form/claims`, an
 * extension of the reference server): the site answers 201 to the first claim of a key and 200
 * `claimed: false` to every later one, atomically, so one delivery starts one execution however many
 * n8n processes receive its repeats.
 */
import type { IWebhookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { siteApiRequestFull } from '../shared/transport';
import type { SiteCredentialType } from '../shared/transport';

export const CLAIMS_PATH = '/api/contact-form/claims';
/** Per attempt: the site waits for this answer, so the claim must not take long. */
const CLAIM_TIMEOUT_MS = 5_000;

/** 'new': this request won the claim; 'repeat': an earlier one did; 'unsupported': no claims endpoint. */
export type ClaimOutcome = 'new' | 'repeat' | 'unsupported';

/** Who the claim is for: this workflow's trigger node (test and production runs share it). */
export function consumerOf(ctx: IWebhookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`;
}

export async function claimOnSite(
	ctx: IWebhookFunctions,
	credentialType: SiteCredentialType,
	key: string,
): Promise<ClaimOutcome> {
	try {
		const response = await siteApiRequestFull.call(
			ctx,
			credentialType,
			{ method: 'POST', path: CLAIMS_PATH, body: { consumer: consumerOf(ctx), key } },
			{ itemIndex: 0, timeout: CLAIM_TIMEOUT_MS },
		);
		return response.statusCode === 201 ? 'new' : 'repeat';
	} catch (error) {
		const httpCode = String((error as { httpCode?: unknown }).httpCode ?? '');
		if (httpCode === '404' || httpCode === '405') return 'unsupported';
		// The transport throws NodeApiError (no token): pass it on; anything else is wrapped (n8n's
		// scanner reads no eslint-disable comments and wants no raw rethrow).
		throw error instanceof NodeApiError
			? error
			: new NodeApiError(ctx.getNode(), error as JsonObject);
	}
}
