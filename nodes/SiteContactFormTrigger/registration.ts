/**
 * Automatic registration: the trigger points the tenant's contact-form webhook at its own URL and
 * gives the site a fresh secret to send along.
 *
 * The node's static data keeps one registration per webhook URL (production and, while the editor
 * listens, test), each with the hash of its secret (never the secret: static data goes into every
 * workflow export, backup and n8n's cache of test webhooks). Listening never displaces the live
 * setting: the test URL is registered as a test webhook, which gets a copy of each submission while
 * the live webhook keeps receiving them all. A service without test webhooks lets the test URL into
 * the settings only when they hold no other URL, so there is never a setting to remember and put back.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHookFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/authentication';
import { headerValue, isPlainObject } from '../shared/json';
import { siteApiRequest } from '../shared/transport';
import { extensionRequest } from './extension';
import { registrationTenant } from './tenant';
import { AUTOMATIC_SECRET_HEADER, generateSecret, hashSecret, secretMatchesHash } from './secret';

export const SETTINGS_PATH = '/api/settings';
export const TEST_WEBHOOKS_PATH = '/api/contact-form/test-webhooks';
/** How long the site sends test copies: longer than n8n listens (10 minutes at most). */
export const TEST_WEBHOOK_TTL_SECONDS = 660;

export interface Registration extends IDataObject {
	url: string;
	headerName: string;
	/** SHA-256 of the secret, hex (secret.ts hashSecret). */
	secretHash: string;
	/** The tenant base URL the site was registered through: where deliveries are claimed. */
	siteUrl?: string;
	/** The tenant registered for: the only tenant_id its deliveries may name (tenant.ts). */
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

export type TestRoute = 'copies' | 'settings';

interface TriggerStaticData extends IDataObject {
	registrations?: Record<string, Registration>;
}

/** The contact-form part of the tenant's settings as the service reports them. */
export interface WebhookSettings {
	url: string | null;
	headers: IDataObject | null;
}

function staticData(ctx: IHookFunctions | IWebhookFunctions): TriggerStaticData {
	return ctx.getWorkflowStaticData('node') as TriggerStaticData;
}

function secretHashOf(registration: Registration): string {
	return typeof registration.secretHash === 'string' ? registration.secretHash : '';
}

/** Where the production registration's deliveries are claimed (its tenant base URL), if known. */
export function productionSiteUrl(ctx: IWebhookFunctions): string | undefined {
	return Object.values(staticData(ctx).registrations ?? {}).find(
		(registration) => registration.test !== true && typeof registration.siteUrl === 'string',
	)?.siteUrl;
}

/**
 * The tenants a request may speak for: those of the registrations of its kind (test or production),
 * see acceptedSecretHashes. A registration made before tenants were recorded adds none.
 */
export function expectedTenants(ctx: IWebhookFunctions): Set<string> {
	const isTest = ctx.getMode() === 'manual';
	return new Set(
		Object.values(staticData(ctx).registrations ?? {})
			.filter((registration) => (registration.test === true) === isTest)
			.map((registration) => registration.tenantId)
			.filter((tenantId): tenantId is string => typeof tenantId === 'string' && tenantId !== ''),
	);
}

/**
 * The hashes of the secrets a request may carry: a test run (mode "manual") accepts the secret of the
 * test registration, a production request that of the production registration, so the one never
 * opens the other's URL.
 */
export function acceptedSecretHashes(ctx: IWebhookFunctions): string[] {
	const isTest = ctx.getMode() === 'manual';
	return Object.values(staticData(ctx).registrations ?? {})
		.filter((registration) => (registration.test === true) === isTest)
		.map(secretHashOf)
		.filter((hash) => hash !== '');
}

function storeRegistrations(ctx: IHookFunctions, registrations: Record<string, Registration>) {
	// Assign a new object at the top level so n8n notices the change and saves the static data.
	staticData(ctx).registrations = registrations;
}

export function webhookUrlOf(ctx: IHookFunctions): string {
	const url = ctx.getNodeWebhookUrl('default');
	if (!url) {
		throw new NodeOperationError(ctx.getNode(), 'The node has no webhook URL', {
			description: 'Check the Path parameter: it must not be empty once expressions are resolved.',
		});
	}
	return url;
}

/**
 * The service's current contact-form settings (`GET /api/settings`, an extension of the reference
 * server). Returns undefined when the service has no such endpoint (404/405): callers then rely on
 * the static data alone.
 */
export async function readWebhookSettings(
	ctx: IHookFunctions,
): Promise<WebhookSettings | undefined> {
	const response = await extensionRequest(
		ctx,
		tenantCredentialType(ctx),
		{ method: 'GET', path: SETTINGS_PATH },
		{ itemIndex: 0 },
	);
	if (response === undefined) {
		ctx.logger.warn(
			'Site Management Contact Form Trigger: the service cannot report its settings (GET /api/settings); relying on the stored registration',
		);
		return undefined;
	}
	const body = isPlainObject(response.body) ? response.body : {};
	const settings = isPlainObject(body.settings) ? body.settings : body;
	const url = settings.contact_form_webhook_url;
	const headers = settings.contact_form_webhook_headers;
	return {
		url: typeof url === 'string' && url !== '' ? url : null,
		headers: isPlainObject(headers) ? headers : null,
	};
}

async function saveWebhookSettings(ctx: IHookFunctions, settings: WebhookSettings): Promise<void> {
	await siteApiRequest.call(
		ctx,
		tenantCredentialType(ctx),
		{
			method: 'POST',
			path: SETTINGS_PATH,
			body: {
				contact_form_webhook_url: settings.url,
				contact_form_webhook_headers: settings.headers,
			},
		},
		{ itemIndex: 0 },
	);
}

/**
 * Whether the site delivers to this node's URL with this node's secret: the static data holds a
 * registration for the URL, and the service's settings (when it can report them) still name that URL
 * and carry that secret (for a test URL: the site still lists it as a test webhook). Anything else (settings changed elsewhere, static data lost, another URL)
 * answers false, and n8n calls create, which registers afresh.
 */
export async function registrationExists(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrlOf(ctx);
	const registration = staticData(ctx).registrations?.[url];
	// One made before tenants were recorded is made afresh, so that its deliveries can be checked.
	if (!registration || typeof registration.tenantId !== 'string') return false;
	if (registration.via === 'copies') return await testWebhookListed(ctx, url);
	const current = await readWebhookSettings(ctx);
	if (current === undefined) return true;
	return (
		current.url === url &&
		secretMatchesHash(
			headerValue(current.headers, registration.headerName),
			secretHashOf(registration),
		)
	);
}

/** Whether the site still sends copies to this test URL (it lists test webhooks without headers). */
async function testWebhookListed(ctx: IHookFunctions, url: string): Promise<boolean> {
	const response = await extensionRequest(
		ctx,
		tenantCredentialType(ctx),
		{ method: 'GET', path: TEST_WEBHOOKS_PATH },
		{ itemIndex: 0 },
	);
	const listed = isPlainObject(response?.body) ? response.body.data : undefined;
	return Array.isArray(listed) && listed.some((entry) => isPlainObject(entry) && entry.url === url);
}

/** Registers this node's URL with a fresh secret and records it in the static data. */
export async function register(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const tenantId = await registrationTenant(ctx);
	const secret = generateSecret();
	const headers = { [AUTOMATIC_SECRET_HEADER]: secret };
	const isTest = ctx.getActivationMode() === 'manual';
	const via = isTest ? await registerTestUrl(ctx, url, headers) : undefined;
	if (!isTest) await saveWebhookSettings(ctx, { url, headers });

	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		tenantCredentialType(ctx),
	);
	const registration: Registration = {
		url,
		headerName: AUTOMATIC_SECRET_HEADER,
		secretHash: hashSecret(secret),
		siteUrl: String(credentials.baseUrl ?? ''),
		tenantId,
		registeredAt: new Date().toISOString(),
		test: isTest,
		...(via ? { via } : {}),
	};
	storeRegistrations(ctx, { ...(staticData(ctx).registrations ?? {}), [url]: registration });
}

/**
 * The editor listens: the test URL becomes a test webhook (copies beside the live delivery), or, on
 * a service without test webhooks, the setting, provided that displaces no other URL.
 */
async function registerTestUrl(
	ctx: IHookFunctions,
	url: string,
	headers: IDataObject,
): Promise<TestRoute> {
	const copies = await extensionRequest(
		ctx,
		tenantCredentialType(ctx),
		{
			method: 'POST',
			path: TEST_WEBHOOKS_PATH,
			body: { url, headers, ttl_seconds: TEST_WEBHOOK_TTL_SECONDS },
		},
		{ itemIndex: 0 },
	);
	if (copies !== undefined) return 'copies';
	const current = await readWebhookSettings(ctx);
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
	await saveWebhookSettings(ctx, { url, headers });
	return 'settings';
}

/**
 * Takes this node's URL off the site: a test webhook is removed; a setting that still points here is
 * cleared. A setting someone changed in the meantime (another URL) is left alone. The registration leaves the
 * static data either way.
 */
export async function unregister(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const registrations = { ...(staticData(ctx).registrations ?? {}) };
	const registration = registrations[url];

	if (registration?.via === 'copies') {
		await extensionRequest(
			ctx,
			tenantCredentialType(ctx),
			{ method: 'DELETE', path: TEST_WEBHOOKS_PATH, body: { url } },
			{ itemIndex: 0 },
		);
	} else {
		const current = await readWebhookSettings(ctx);
		const pointsHere = current === undefined ? registration !== undefined : current.url === url;
		if (pointsHere) await saveWebhookSettings(ctx, { url: null, headers: null });
	}

	delete registrations[url];
	storeRegistrations(ctx, registrations);
}
