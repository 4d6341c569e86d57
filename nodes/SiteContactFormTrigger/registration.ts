/**
 * Automatic registration: the trigger points each tenant it serves (served.ts) at its own URL, each
 * with its own fresh secret for the site to send along, and records each place (records.ts).
 *
 * A delivery is taken only when its secret is one registration's and it names that registration's
 * tenant. Listening never displaces the live setting: the test URL is registered as a test webhook
 * with each tenant, which gets a copy of each submission while the live webhook keeps receiving them
 * all. A service without test webhooks lets the test URL into the settings only when they hold no
 * other URL, so there is never a setting to remember and put back.
 *
 * An activation first takes the URL off the places recorded that it will not renew (another tenant,
 * base URL or URL: the credential or the node changed), and fails naming them if it cannot
 * (unregistration.ts). It then registers with every tenant or with none: when one fails, those made
 * in the same attempt are taken back and the error names each tenant that failed and why.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { headerValue } from '../shared/json';
import { tenantCredentialType } from '../shared/target';
import type { TenantFailure } from './forEachTenant';
import { describeFailures, forEachTenant } from './forEachTenant';
import type { Registration, TestRoute } from './records';
import { comparableBaseUrl } from './registeredSite';
import {
	allRegistrations,
	hasTenant,
	registrationsAt,
	secretHashOf,
	storeRegistrationsAt,
} from './records';
import { AUTOMATIC_SECRET_HEADER, generateSecret, hashSecret, secretMatchesHash } from './secret';
import { servedTenants } from './served';
import {
	addTestWebhook,
	readWebhookSettings,
	saveWebhookSettings,
	servedSite,
	testWebhookListed,
} from './siteSettings';
import {
	clearSite,
	takeOffError,
	takeOffRecorded,
	unregister as unregisterAt,
} from './unregistration';

function webhookUrlOf(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(ctx.getNode(), 'The node has no webhook URL', {
			description: 'Check the Path parameter: it must not be empty once expressions are resolved.',
		});
	}
	return url;
}

const isTestActivation = (ctx: IHookFunctions) => ctx.getActivationMode() === 'manual';

async function credentialBaseUrl(ctx: IHookFunctions): Promise<string> {
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		tenantCredentialType(ctx),
	);
	return String(credentials.baseUrl ?? '');
}

/**
 * The live registrations recorded that this activation will not renew: another URL, a tenant no
 * longer served, or made through another base URL. A test activation leaves live ones alone.
 */
function notRenewed(
	ctx: IHookFunctions,
	url: string,
	tenants: string[],
	baseUrl: string,
): Array<Registration & { tenantId: string }> {
	if (isTestActivation(ctx)) return [];
	const served = new Set(tenants);
	return allRegistrations(ctx)
		.filter(hasTenant)
		.filter(
			(registration) =>
				registration.test !== true &&
				(registration.url !== url ||
					!served.has(registration.tenantId) ||
					(registration.siteUrl !== undefined &&
						comparableBaseUrl(registration.siteUrl) !== comparableBaseUrl(baseUrl))),
		);
}

/** Whether the tenant's site still delivers to this registration's URL with its secret. */
async function registrationHolds(
	ctx: IHookFunctions,
	registration: Registration & { tenantId: string },
): Promise<boolean> {
	const site = servedSite(registration.tenantId);
	if (registration.via === 'copies') return await testWebhookListed(ctx, site, registration.url);
	const current = await readWebhookSettings(ctx, site);
	if (current === undefined) return true;
	return (
		current.url === registration.url &&
		secretMatchesHash(
			headerValue(current.headers, registration.headerName),
			secretHashOf(registration),
		)
	);
}

/**
 * Whether every tenant served delivers to this node's URL with this node's secret for it: the static
 * data holds exactly one registration per tenant served for the URL, no other live one, and each
 * site's settings (when it can report them) still name that URL and carry that secret (for a test
 * URL: the site still lists it as a test webhook). Anything else (settings changed elsewhere, static
 * data lost, the list or the credential changed) answers false, and n8n calls create.
 */
export async function registrationExists(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrlOf(ctx);
	const tenants = await servedTenants(ctx);
	if (notRenewed(ctx, url, tenants, await credentialBaseUrl(ctx)).length > 0) return false;
	const here = registrationsAt(ctx, url);
	// One made before tenants were recorded has no tenant: it is made afresh, so that its
	// deliveries can be checked.
	const byTenant = new Map(
		here.filter(hasTenant).map((registration) => [registration.tenantId, registration]),
	);
	if (here.length !== tenants.length || tenants.some((tenantId) => !byTenant.has(tenantId))) {
		return false;
	}
	let holds = true;
	const { failures } = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) => {
			if (!(await registrationHolds(ctx, byTenant.get(tenantId)!))) holds = false;
		},
	);
	if (failures.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`Could not check the contact-form registration with ${describeFailures(failures)}`,
		);
	}
	return holds;
}
/** Registers the URL with one tenant under a fresh secret; returns the record of it. */
async function registerTenant(
	ctx: IHookFunctions,
	url: string,
	tenantId: string,
	siteUrl: string,
): Promise<Registration> {
	const secret = generateSecret();
	const headers = { [AUTOMATIC_SECRET_HEADER]: secret };
	const isTest = isTestActivation(ctx);
	const via = isTest ? await registerTestUrl(ctx, tenantId, url, headers) : undefined;
	if (!isTest) await saveWebhookSettings(ctx, servedSite(tenantId), { url, headers });
	return {
		url,
		headerName: AUTOMATIC_SECRET_HEADER,
		secretHash: hashSecret(secret),
		siteUrl,
		tenantId,
		registeredAt: new Date().toISOString(),
		test: isTest,
		...(via ? { via } : {}),
	};
}

/**
 * Registers this node's URL with every tenant served, each with its own fresh secret, and records
 * them in the static data. Places recorded that this activation will not renew are taken off first;
 * if one cannot be, nothing is registered and the activation fails naming it. If any tenant fails to
 * register, the others of this attempt are taken back and the activation fails naming each.
 */
export async function register(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const tenants = await servedTenants(ctx);
	const siteUrl = await credentialBaseUrl(ctx);
	// Every tenant answers first (its token minted, its settings read), so that an unknown tenant or
	// a refused token fails the activation before any site's setting has changed. (n8n 2.x publishes
	// again every few seconds while a published workflow's trigger is missing.)
	const reachable = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) => await readWebhookSettings(ctx, servedSite(tenantId)),
	);
	if (reachable.failures.length > 0) {
		throw activationError(ctx, tenants.length, reachable.failures, undefined);
	}
	const stale = await takeOffRecorded(ctx, notRenewed(ctx, url, tenants, siteUrl));
	if (stale.length > 0) {
		throw takeOffError(ctx, stale, 'It no longer serves them, and nothing new was registered. ');
	}
	const { done, failures } = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) => await registerTenant(ctx, url, tenantId, siteUrl),
	);
	if (failures.length > 0) {
		const takeBack = await forEachTenant(
			done,
			(registration) => registration.tenantId as string,
			async (registration) =>
				await clearSite(ctx, servedSite(registration.tenantId as string), registration),
		);
		throw activationError(ctx, tenants.length, failures, takeBack.failures);
	}
	storeRegistrationsAt(ctx, url, done);
}

/** Takes this node's URL off every place recorded for it (unregistration.ts). */
export async function unregister(ctx: IHookFunctions): Promise<void> {
	await unregisterAt(ctx, webhookUrlOf(ctx));
}

/**
 * The failed activation's error, naming each tenant and why. `notTakenBack`: undefined when nothing
 * was registered, else the registrations of this attempt that could not be taken back.
 */
function activationError(
	ctx: IHookFunctions,
	served: number,
	failures: TenantFailure[],
	notTakenBack: TenantFailure[] | undefined,
): NodeOperationError {
	const which = served === 1 ? 'its tenant' : `${failures.length} of its ${served} tenants`;
	const message = `The trigger could not register its URL with ${which}: ${describeFailures(failures)}`;
	let outcome = 'No site was changed.';
	if (notTakenBack !== undefined) {
		outcome =
			notTakenBack.length === 0
				? 'The registrations made with the other tenants in this attempt were taken back.'
				: `Could not take back the registration with ${describeFailures(notTakenBack)}: its site may still deliver here and be refused.`;
	}
	return new NodeOperationError(ctx.getNode(), message, {
		description: `${outcome} Correct the tenants (or the credential) and activate the workflow again.`,
	});
}

/**
 * The editor listens: the test URL becomes a test webhook of the tenant (copies beside the live
 * delivery), or, on a service without test webhooks, its setting, provided that displaces no other URL.
 */
async function registerTestUrl(
	ctx: IHookFunctions,
	tenantId: string,
	url: string,
	headers: IDataObject,
): Promise<TestRoute> {
	const site = servedSite(tenantId);
	if (await addTestWebhook(ctx, site, url, headers)) return 'copies';
	const current = await readWebhookSettings(ctx, site);
	if (current === undefined) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The site can neither send test copies nor report its settings, so listening here could take its submissions away from the webhook it delivers to',
			{
				description:
					"The service has no test webhooks (POST /api/contact-form/test-webhooks) and no GET /api/settings. Test with Manual registration: put the node's Test URL and a secret header into the site's contact-form setting yourself.",
			},
		);
	}
	if (current.url !== null && current.url !== url) {
		throw new NodeOperationError(
			ctx.getNode(),
			'The site cannot send test copies, and listening here would take its submissions away from the webhook it delivers to now',
			{
				description:
					'The service has no test webhooks (POST /api/contact-form/test-webhooks), so a test would have to replace its contact-form webhook URL. Test with another tenant or with Manual registration, or clear the webhook URL (e.g. unpublish the workflow) first.',
			},
		);
	}
	await saveWebhookSettings(ctx, site, { url, headers });
	return 'settings';
}
