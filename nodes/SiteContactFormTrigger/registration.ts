/**
 * Automatic registration: the trigger points each tenant it serves (served.ts) at its own URL, each
 * with its own fresh secret for the site to send along.
 *
 * The node's static data keeps one registration per tenant and webhook URL (production and, while
 * the editor listens, test), each with the hash of its secret (never the secret: static data goes
 * into every workflow export, backup and n8n's cache of test webhooks). A delivery is taken only
 * when its secret is one registration's and it names that registration's tenant. Listening never
 * displaces the live setting: the test URL is registered as a test webhook with each tenant, which
 * gets a copy of each submission while the live webhook keeps receiving them all. A service without
 * test webhooks lets the test URL into the settings only when they hold no other URL, so there is
 * never a setting to remember and put back.
 *
 * An activation registers with every tenant or with none: when one fails, those made in the same
 * attempt are taken back and the error names each tenant that failed and why.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/authentication';
import { headerValue } from '../shared/json';
import { runWindow } from '../shared/window';
import { AUTOMATIC_SECRET_HEADER, generateSecret, hashSecret, secretMatchesHash } from './secret';
import { servedTenants } from './served';
import {
	addTestWebhook,
	readWebhookSettings,
	removeTestWebhook,
	saveWebhookSettings,
	testWebhookListed,
} from './siteSettings';

export interface Registration extends IDataObject {
	url: string;
	headerName: string;
	/** SHA-256 of the secret, hex (secret.ts hashSecret). */
	secretHash: string;
	/** The tenant base URL the site was registered through: where deliveries are claimed. */
	siteUrl?: string;
	/** The tenant registered for: the only tenant_id deliveries with this secret may name (tenant.ts). */
	tenantId?: string;
	registeredAt: string;
	/** Made while the editor listens for a test event (activation mode "manual"). */
	test: boolean;
	/**
	 * Test registrations: "copies" when the site sends copies to a test webhook, "settings" when the
	 * settings, empty before, point at the test URL.
	 */
	via?: TestRoute;
}

type TestRoute = 'copies' | 'settings';

interface TriggerStaticData extends IDataObject {
	registrations?: Record<string, Registration>;
}

/** Tenants registered with (or taken off) at once: the service is asked a few times per tenant. */
const REGISTRATION_CONCURRENCY = 8;

function staticData(ctx: IHookFunctions | IWebhookFunctions): TriggerStaticData {
	return ctx.getWorkflowStaticData('node') as TriggerStaticData;
}

function allRegistrations(ctx: IHookFunctions | IWebhookFunctions): Registration[] {
	return Object.values(staticData(ctx).registrations ?? {});
}

export function secretHashOf(registration: Registration): string {
	return typeof registration.secretHash === 'string' ? registration.secretHash : '';
}

/**
 * Stores `registrations` as the whole set for `url`; the other URL's stay. Keyed by URL when the URL
 * serves one tenant (as before triggers served several, so such static data does not change), else
 * by tenant and URL. Readers go by the records' fields, never by the key.
 */
function storeRegistrationsAt(ctx: IHookFunctions, url: string, registrations: Registration[]) {
	const entries = (list: Registration[]) =>
		list.map((registration) => [
			list.length === 1 ? registration.url : `${registration.tenantId ?? ''} ${registration.url}`,
			registration,
		]);
	const kept = allRegistrations(ctx).filter((registration) => registration.url !== url);
	const otherUrls = [...new Set(kept.map((registration) => registration.url))];
	// Assign a new object at the top level so n8n notices the change and saves the static data.
	staticData(ctx).registrations = Object.fromEntries([
		...otherUrls.flatMap((other) =>
			entries(kept.filter((registration) => registration.url === other)),
		),
		...entries(registrations),
	]);
}

function registrationsAt(ctx: IHookFunctions, url: string): Registration[] {
	return allRegistrations(ctx).filter((registration) => registration.url === url);
}

/**
 * The registrations a request may match: a test run (mode "manual") those of the test URL, a
 * production request those of the production URL, so the one never opens the other's URL.
 */
export function deliveryRegistrations(ctx: IWebhookFunctions): Registration[] {
	const isTest = ctx.getMode() === 'manual';
	return allRegistrations(ctx).filter(
		(registration) => (registration.test === true) === isTest && secretHashOf(registration) !== '',
	);
}

function webhookUrlOf(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(ctx.getNode(), 'The node has no webhook URL', {
			description: 'Check the Path parameter: it must not be empty once expressions are resolved.',
		});
	}
	return url;
}

/** What failed for whom, in the order the tenants were given. */
interface TenantFailure {
	tenantId: string;
	reason: string;
}

/**
 * Runs `work` for each entry, REGISTRATION_CONCURRENCY at a time, every one to the end whatever
 * the others do; returns the results and the failures.
 */
async function forEachTenant<T, R>(
	entries: T[],
	tenantOf: (entry: T) => string,
	work: (entry: T) => Promise<R>,
): Promise<{ done: R[]; failures: TenantFailure[] }> {
	const done: R[] = [];
	const failed = new Map<number, TenantFailure>();
	await runWindow(0, entries.length, REGISTRATION_CONCURRENCY, async (index) => {
		try {
			done.push(await work(entries[index]));
		} catch (error) {
			failed.set(index, { tenantId: tenantOf(entries[index]), reason: (error as Error).message });
		}
	});
	const failures = [...failed.entries()].sort(([a], [b]) => a - b).map(([, failure]) => failure);
	return { done, failures };
}

function describeFailures(failures: TenantFailure[]): string {
	return failures.map(({ tenantId, reason }) => `"${tenantId}": ${reason}`).join('; ');
}

/** Whether the tenant's site still delivers to this registration's URL with its secret. */
async function registrationHolds(
	ctx: IHookFunctions,
	registration: Registration,
): Promise<boolean> {
	const tenantId = registration.tenantId as string;
	if (registration.via === 'copies')
		return await testWebhookListed(ctx, tenantId, registration.url);
	const current = await readWebhookSettings(ctx, tenantId);
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
 * data holds exactly one registration per tenant served for the URL, and each site's settings (when
 * it can report them) still name that URL and carry that secret (for a test URL: the site still lists
 * it as a test webhook). Anything else (settings changed elsewhere, static data lost, the list
 * changed) answers false, and n8n calls create, which registers afresh.
 */
export async function registrationExists(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrlOf(ctx);
	const tenants = await servedTenants(ctx);
	const here = registrationsAt(ctx, url);
	// One made before tenants were recorded has no tenant: it is made afresh, so that its
	// deliveries can be checked.
	const byTenant = new Map(here.map((registration) => [registration.tenantId, registration]));
	if (here.length !== tenants.length || tenants.some((tenantId) => !byTenant.has(tenantId))) {
		return false;
	}
	let holds = true;
	const { failures } = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) => {
			if (!(await registrationHolds(ctx, byTenant.get(tenantId) as Registration))) holds = false;
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
	const isTest = ctx.getActivationMode() === 'manual';
	const via = isTest ? await registerTestUrl(ctx, tenantId, url, headers) : undefined;
	if (!isTest) await saveWebhookSettings(ctx, tenantId, { url, headers });
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
 * them in the static data. If any tenant fails, the others of this attempt are taken back and the
 * activation fails naming each failed tenant. Tenants registered before and no longer served are
 * taken off.
 */
export async function register(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const tenants = await servedTenants(ctx);
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		tenantCredentialType(ctx),
	);
	const siteUrl = String(credentials.baseUrl ?? '');
	// Every tenant answers first (its token minted, its settings read), so that an unknown tenant or
	// a refused token fails the activation before any site's setting has changed. (n8n 2.x publishes
	// again every few seconds while a published workflow's trigger is missing.)
	const reachable = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) => await readWebhookSettings(ctx, tenantId),
	);
	if (reachable.failures.length > 0) {
		throw activationError(ctx, tenants.length, reachable.failures, undefined);
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
			async (registration) => await unregisterTenant(ctx, registration),
		);
		throw activationError(ctx, tenants.length, failures, takeBack.failures);
	}
	const served = new Set(tenants);
	const dropped = registrationsAt(ctx, url).filter(
		(registration) => !served.has(registration.tenantId as string),
	);
	const leftOver = await forEachTenant(
		dropped,
		(registration) => registration.tenantId ?? '',
		async (registration) => await unregisterTenant(ctx, registration),
	);
	for (const { tenantId, reason } of leftOver.failures) {
		ctx.logger.warn(
			`Site Management Contact Form Trigger: could not take tenant "${tenantId}", no longer served, off this URL: ${reason}`,
		);
	}
	storeRegistrationsAt(ctx, url, done);
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
	if (await addTestWebhook(ctx, tenantId, url, headers)) return 'copies';
	const current = await readWebhookSettings(ctx, tenantId);
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
	await saveWebhookSettings(ctx, tenantId, { url, headers });
	return 'settings';
}

/**
 * Takes the URL off one tenant's site: a test webhook is removed; a setting that still points here
 * is cleared. A setting someone changed in the meantime (another URL) is left alone.
 */
async function unregisterTenant(ctx: IHookFunctions, registration: Registration): Promise<void> {
	const tenantId = registration.tenantId as string;
	if (registration.via === 'copies') {
		await removeTestWebhook(ctx, tenantId, registration.url);
		return;
	}
	const current = await readWebhookSettings(ctx, tenantId);
	if (current === undefined || current.url === registration.url) {
		await saveWebhookSettings(ctx, tenantId, { url: null, headers: null });
	}
}

/**
 * Takes this node's URL off every tenant registered for it. Without a stored registration (static
 * data lost) the tenants served are asked, and each setting that still points here is cleared. The
 * registrations leave the static data, except those whose tenant could not be reached: the error
 * names them, and the next deactivation tries again.
 */
export async function unregister(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const here = registrationsAt(ctx, url).filter(
		(registration): registration is Registration & { tenantId: string } =>
			typeof registration.tenantId === 'string' && registration.tenantId !== '',
	);
	const targets = here.length > 0 ? here : await unrecordedTargets(ctx, url);
	const { failures } = await forEachTenant(
		targets,
		(registration) => registration.tenantId as string,
		async (registration) => await unregisterTenant(ctx, registration),
	);
	const failed = new Set(failures.map((failure) => failure.tenantId));
	storeRegistrationsAt(
		ctx,
		url,
		here.filter((registration) => failed.has(registration.tenantId)),
	);
	if (failures.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The trigger could not take its URL off ${describeFailures(failures)}`,
		);
	}
}

/** For static data lost: the tenants served, as registrations of the URL (clears only settings pointing here). */
async function unrecordedTargets(ctx: IHookFunctions, url: string): Promise<Registration[]> {
	let tenants: string[];
	try {
		tenants = await servedTenants(ctx);
	} catch (error) {
		ctx.logger.warn(
			`Site Management Contact Form Trigger: no registration recorded and the tenants served cannot be told (${(error as Error).message}); nothing was cleared`,
		);
		return [];
	}
	return tenants.map((tenantId) => ({
		url,
		headerName: AUTOMATIC_SECRET_HEADER,
		secretHash: '',
		tenantId,
		registeredAt: '',
		test: ctx.getActivationMode() === 'manual',
	}));
}
