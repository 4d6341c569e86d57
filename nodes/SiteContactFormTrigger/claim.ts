/**
 * Claims a submission on the site before the workflow starts (`POST /api/contact-form/claims`, an
 * extension of the reference server): the site answers 201 to the first claim of a key and 200
 * `claimed: false` to every later one, atomically, so one delivery starts one execution however many
 * n8n processes receive its repeats.
 */
import type { IWebhookFunctions } from 'n8n-workflow';

import type { SiteCredentialType } from '../shared/transport';
import { extensionRequest } from './extension';

export const CLAIMS_PATH = '/api/contact-form/claims';
/** Per attempt: the site waits for this answer, so the claim must not take long. */
const CLAIM_TIMEOUT_MS = 5_000;

/** 'new': this request won the claim; 'repeat': an earlier one did; 'unsupported': no claims endpoint. */
export type ClaimOutcome = 'new' | 'repeat' | 'unsupported';

/** Who the claim is for: this workflow's trigger node (production runs only; test runs do not claim). */
export function consumerOf(ctx: IWebhookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`;
}

export async function claimOnSite(
	ctx: IWebhookFunctions,
	credentialType: SiteCredentialType,
	key: string,
): Promise<ClaimOutcome> {
	const response = await extensionRequest(
		ctx,
		credentialType,
		{ method: 'POST', path: CLAIMS_PATH, body: { consumer: consumerOf(ctx), key } },
		{ itemIndex: 0, timeout: CLAIM_TIMEOUT_MS },
	);
	if (response === undefined) return 'unsupported';
	return response.statusCode === 201 ? 'new' : 'repeat';
}
