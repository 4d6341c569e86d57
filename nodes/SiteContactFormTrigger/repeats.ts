/**
 * Tells a repeated delivery from a new one (delivery is at least once). Automatic registration claims
 * the submission on the site, which holds across n8n processes and restarts; manual registration (no
 * API credential) and a service without the claims endpoint fall back to this process's memory (best
 * effort: one process, until it restarts).
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { headerAuth } from '../shared/auth';
import { isMissingEndpoint, readThrownRequestError } from '../shared/errors';
import { isPlainObject } from '../shared/json';
import type { Route, SiteResponse } from '../shared/transport';
import { sendOnRoute } from '../shared/transport';
import { AUTOMATIC_SECRET_HEADER } from './secret';

/*
 * The claim on the site (`POST /forms/{tenant_id}/claims`, an extension of the reference server): the
 * site answers 201 to the first claim of a key and 200 `claimed: false` to every later one,
 * atomically, so one delivery starts one execution however many n8n processes receive its repeats.
 * The claim presents the secret the delivery carried, to the tenant base URL the node registered
 * through: it needs no credential, so a delivery costs n8n no credential read.
 */
/** Per attempt: the site waits for this answer, so the claim must not take long. */
const CLAIM_TIMEOUT_MS = 5_000;

/** 'new': this request won the claim; 'repeat': an earlier one did; 'unsupported': no claims endpoint. */
type ClaimOutcome = 'new' | 'repeat' | 'unsupported';

/** Where and with what a delivery is claimed. */
export interface SiteClaim {
	/** The tenant base URL the trigger registered through. */
	siteUrl: string;
	/** The delivery's `tenant_id`. */
	tenantId: string;
	/** The secret the delivery carried (already checked against the registration). */
	secret: string;
}

/** Who the claim is for: this workflow's trigger node (production runs only; test runs do not claim). */
function consumerOf(ctx: IWebhookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}/${ctx.getNode().id}`;
}

/** The claim's route: the site it registered through, the delivery's secret, one short attempt. */
function claimRoute(ctx: IWebhookFunctions, claim: SiteClaim): Route {
	return {
		baseUrl: claim.siteUrl,
		auth: headerAuth(ctx, AUTOMATIC_SECRET_HEADER, claim.secret),
		timeout: CLAIM_TIMEOUT_MS,
		maxRetries: 0,
		dryRun: false,
	};
}

async function claimOnSite(
	ctx: IWebhookFunctions,
	claim: SiteClaim,
	key: string,
): Promise<ClaimOutcome> {
	let response: SiteResponse;
	try {
		response = await sendOnRoute(
			ctx,
			claimRoute(ctx, claim),
			{
				method: 'POST',
				path: `/forms/${encodeURIComponent(claim.tenantId)}/claims`,
				body: { consumer: consumerOf(ctx), key },
			},
			// Every answer is read here; the sender never follows a redirect (the secret stays on the site).
			{ itemIndex: 0, acceptStatus: () => true },
		);
	} catch (error) {
		const { code } = readThrownRequestError(error);
		throw new NodeApiError(ctx.getNode(), {
			message: `The site did not answer the claim${code ? ` (${code})` : ''}`,
		});
	}
	const status = response.statusCode;
	if (status === 201) return 'new';
	if (status === 200) return 'repeat';
	if (isMissingEndpoint(status)) return 'unsupported';
	const message = isPlainObject(response.body) ? response.body.message : undefined;
	throw new NodeApiError(ctx.getNode(), {
		message: `The site refused the claim: ${typeof message === 'string' ? message : `HTTP ${status}`}`,
		httpCode: String(status),
	});
}

/*
 * The fallback, this process's memory: submissions this n8n process has started a workflow for, per
 * trigger node, for telling repeats where the site cannot hold a claim (manual registration, a service without the claims
 * endpoint). It lives in memory, so it holds within one process only and is empty after a restart;
 * the node never writes it to static data: n8n saves a webhook's static data whole, as read when the
 * request began, so a delivery running across a re-activation would put back the registration (the
 * secret's hash) that the re-activation replaced, and the trigger would then refuse every delivery.
 */
/** Submissions remembered per trigger node. */
const REMEMBERED_SUBMISSIONS = 1000;
/** Trigger nodes remembered per process. */
const REMEMBERED_CONSUMERS = 1000;

/** Consumer -> submission keys, both oldest first (a Map keeps insertion order). */
const recent = new Map<string, Set<string>>();

/**
 * Records the key for the consumer; false when it was already recorded. Check and record happen in one
 * synchronous step, so concurrent requests in this process cannot both see a key as new.
 */
function recordInProcess(consumer: string, key: string): boolean {
	let keys = recent.get(consumer);
	if (keys) {
		recent.delete(consumer);
	} else {
		keys = new Set();
		if (recent.size >= REMEMBERED_CONSUMERS) recent.delete(recent.keys().next().value as string);
	}
	recent.set(consumer, keys);
	if (keys.has(key)) return false;
	keys.add(key);
	if (keys.size > REMEMBERED_SUBMISSIONS) keys.delete(keys.values().next().value as string);
	return true;
}

/** Whether the submission is new: claims it (see above) and answers true for the first claim only. */
export async function claimSubmission(
	ctx: IWebhookFunctions,
	key: string,
	siteClaim: SiteClaim | undefined,
): Promise<boolean> {
	if (siteClaim !== undefined) {
		const outcome = await claimOnSite(ctx, siteClaim, key);
		if (outcome !== 'unsupported') return outcome === 'new';
		ctx.logger.warn(
			'Site Management Contact Form Trigger: the service has no claims endpoint (POST /forms/{tenant_id}/claims); repeats are recognised within this n8n process only',
		);
	}
	return recordInProcess(consumerOf(ctx), key);
}
