/**
 * One delivery to the Contact Form Trigger's URL, step by step: who sent it (the secret), what it
 * is (a JSON submission of the tenant that secret speaks for), whether it is a repeat (the claim),
 * and the item it starts. A step that refuses answers the site itself and starts nothing.
 */
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { manualCredentialProblems, manualHeaderName, manualTenant } from './manualSecret';
import type { Registration } from './records';
import { deliveryRegistrations, secretHashOf } from './records';
import type { SiteClaim } from './repeats';
import { claimSubmission } from './repeats';
import {
	AUTOMATIC_SECRET_HEADER,
	matchingHashIndex,
	secretMatches,
	visibleHeaders,
} from './secret';
import {
	isJsonContentType,
	requestJsonObject,
	submissionIdentity,
	submissionItem,
} from './submission';
import { deliveryTenantProblem } from './tenant';

/** Answers the request itself and starts nothing. */
function reject(
	ctx: IWebhookFunctions,
	status: number,
	error: string,
	message: string,
	retryAfterSeconds?: number,
): { refused: IWebhookResponseData } {
	ctx.logger.debug(`Site Management Contact Form Trigger rejected a request: ${status} ${error}`);
	const response = ctx.getResponseObject();
	if (retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(retryAfterSeconds));
	response.status(status).json({ error, message });
	return { refused: { noWebhookResponse: true } };
}

/** Who sent a delivery: the header its secret came in, the tenants it may name, its registration. */
interface Sender {
	headerName: string;
	tenants: Set<string>;
	/** Automatic registration: the registration whose secret the delivery carries. */
	registered?: Registration;
}

type Step<T> = T | { refused: IWebhookResponseData };

const refused = <T extends object>(step: Step<T>): step is { refused: IWebhookResponseData } =>
	'refused' in step;

/** Manual registration: the secret credential's header and secret, its one tenant. */
async function manualSender(ctx: IWebhookFunctions, headers: IDataObject): Promise<Step<Sender>> {
	const credentials = await ctx.getCredentials('siteContactFormSecretApi');
	const headerName = manualHeaderName(credentials);
	const problems = manualCredentialProblems(credentials);
	if (problems.length > 0) {
		// Changed after activation: refuse (the site retries a 5xx) rather than accept a weak secret.
		return reject(
			ctx,
			500,
			'misconfigured',
			`The trigger's secret credential is not usable: ${problems.join(' ')}`,
		);
	}
	if (!secretMatches(headers[headerName.toLowerCase()], String(credentials.secret)))
		return reject(ctx, 401, 'unauthorized', 'The webhook secret is missing or wrong.');
	return { headerName, tenants: new Set([manualTenant(credentials)]) };
}

/** Automatic registration: each tenant has its own secret, which tells the tenant it may name. */
function automaticSender(ctx: IWebhookFunctions, headers: IDataObject): Step<Sender> {
	const accepted = deliveryRegistrations(ctx);
	if (accepted.length === 0) {
		// The site learns the URL and secret in create(); n8n stores them a moment later.
		// A delivery in between is asked to come back, not refused for good as a 401 would be.
		return reject(
			ctx,
			503,
			'not_ready',
			'The trigger is still being set up; deliver again in a moment.',
			1,
		);
	}
	const index = matchingHashIndex(
		headers[AUTOMATIC_SECRET_HEADER.toLowerCase()],
		accepted.map(secretHashOf),
	);
	const registered = accepted[index];
	if (registered === undefined)
		return reject(ctx, 401, 'unauthorized', 'The webhook secret is missing or wrong.');
	const { tenantId } = registered;
	return {
		headerName: AUTOMATIC_SECRET_HEADER,
		tenants: new Set(typeof tenantId === 'string' && tenantId !== '' ? [tenantId] : []),
		registered,
	};
}

type Identity = ReturnType<typeof submissionIdentity>;

/** The submission: a JSON object, well formed, of a tenant the sender may name. */
function readSubmission(
	ctx: IWebhookFunctions,
	headers: IDataObject,
	{ tenants }: Sender,
): Step<{ body: IDataObject; identity: Exclude<Identity, { kind: 'invalid' }> }> {
	const body = requestJsonObject(ctx.getRequestObject());
	if (!isJsonContentType(headers['content-type']) || body === undefined) {
		return reject(
			ctx,
			400,
			'invalid_json',
			'The body must be a JSON object sent as application/json.',
		);
	}
	const identity = submissionIdentity(body);
	if (identity.kind === 'invalid')
		return reject(ctx, 400, 'validation_failed', `${identity.problem}.`);
	if (tenants.size === 0) {
		// Registered by an earlier version, which recorded no tenant: the site delivers again
		// once the workflow is activated anew (that registers afresh).
		return reject(
			ctx,
			503,
			'unavailable',
			'The webhook does not know its tenant yet; deliver it again later.',
		);
	}
	const problem = deliveryTenantProblem(body, tenants);
	if (problem) {
		const error = problem.status === 403 ? 'forbidden' : 'validation_failed';
		return reject(ctx, problem.status, error, problem.message);
	}
	return { body, identity };
}

/**
 * How an automatic registration's delivery is claimed: at the tenant base URL it registered through,
 * for its tenant (the delivery named it: checked before), with the secret the delivery carried (no
 * credential read per delivery).
 */
function siteClaimOf(registration: Registration, headers: IDataObject): SiteClaim | undefined {
	const { siteUrl, tenantId } = registration;
	const secret = headers[AUTOMATIC_SECRET_HEADER.toLowerCase()];
	if (!siteUrl || typeof secret !== 'string' || typeof tenantId !== 'string' || !tenantId) {
		return undefined;
	}
	return { siteUrl, tenantId, secret };
}

/** The answer for a repeat or an unclaimable submission; undefined for a new one. */
async function repeatAnswer(
	ctx: IWebhookFunctions,
	headers: IDataObject,
	identity: Identity,
	{ registered }: Sender,
): Promise<IWebhookResponseData | undefined> {
	// A test run takes no claim: with automatic registration it gets a copy of a submission that the
	// published workflow receives too, and a claim would make that delivery look like a repeat.
	if (identity.kind !== 'id' || ctx.getMode() === 'manual') return undefined;
	if (!(ctx.getNodeParameter('ignoreRepeats', true) as boolean)) return undefined;
	let isNew: boolean;
	try {
		const claim = registered ? siteClaimOf(registered, headers) : undefined;
		isNew = await claimSubmission(ctx, identity.key, claim);
	} catch (error) {
		// Not knowing whether it is a repeat, start nothing: the site delivers again later.
		ctx.logger.warn(
			'Site Management Contact Form Trigger could not claim a submission on the site',
			{
				error: (error as Error).message,
			},
		);
		return reject(
			ctx,
			503,
			'unavailable',
			'Could not check the submission with the site; deliver it again later.',
		).refused;
	}
	if (isNew) return undefined;
	return {
		webhookResponse: { message: 'Submission already received', submission_id: identity.id },
	};
}

/** The Contact Form Trigger's webhook: a delivery in, one item out (or the site's answer alone). */
export async function receiveDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const headers = ctx.getHeaderData() as IDataObject;
	const manual = ctx.getNodeParameter('registration', 'automatic') === 'manual';
	const sender = manual ? await manualSender(ctx, headers) : automaticSender(ctx, headers);
	if (refused(sender)) return sender.refused;
	const submission = readSubmission(ctx, headers, sender);
	if (refused(submission)) return submission.refused;
	const repeat = await repeatAnswer(ctx, headers, submission.identity, sender);
	if (repeat) return repeat;

	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	const item = submissionItem(submission.body, {
		liftFields: options.liftFields === true,
		headers:
			options.includeHeaders === true ? visibleHeaders(headers, sender.headerName) : undefined,
	});
	return { workflowData: [ctx.helpers.returnJsonArray([item])] };
}
