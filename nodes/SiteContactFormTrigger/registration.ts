/**
 * Automatic registration: the trigger points the tenant's contact-form webhook at its own URL and
 * gives the site a fresh secret to send along.
 *
 * The node's static data keeps one registration per webhook URL (production and, while the editor
 * listens, test), each with the hash of its secret (never the secret: static data goes into every
 * workflow export and backup). The site can deliver to one URL only, so registering the
 * test URL displaces whatever was configured before; that previous setting is remembered with the
 * test registration and put back when the editor stops listening.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/authentication';
import { headerValue, isPlainObject } from '../shared/json';
import { siteApiRequest } from '../shared/transport';
import { AUTOMATIC_SECRET_HEADER, generateSecret, hashSecret, secretMatchesHash } from './secret';

export const SETTINGS_PATH = '/api/settings';

/** What the site was configured with before a test registration displaced it. */
export interface ReplacedSettings extends IDataObject {
	url: string | null;
	headers: IDataObject | null;
}

export interface Registration extends IDataObject {
	url: string;
	headerName: string;
	/** SHA-256 of the secret, hex (secret.ts hashSecret). */
	secretHash: string;
	/** Only in registrations made before the hash was kept; read, never written. */
	secret?: string;
	registeredAt: string;
	/** Made while the editor listens for a test event (activation mode "manual"). */
	test: boolean;
	/** Test registrations only: the setting it displaced, put back when listening stops. */
	replaced?: ReplacedSettings;
}

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
	if (typeof registration.secretHash === 'string') return registration.secretHash;
	return typeof registration.secret === 'string' && registration.secret !== ''
		? hashSecret(registration.secret)
		: '';
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
	let response: unknown;
	try {
		response = await siteApiRequest.call(
			ctx,
			tenantCredentialType(ctx),
			{ method: 'GET', path: SETTINGS_PATH },
			{ itemIndex: 0 },
		);
	} catch (error) {
		const httpCode = String((error as { httpCode?: unknown }).httpCode ?? '');
		if (httpCode === '404' || httpCode === '405') {
			ctx.logger.warn(
				'Site Management Contact Form Trigger: the service cannot report its settings (GET /api/settings); relying on the stored registration',
				{ httpCode },
			);
			return undefined;
		}
		// The transport throws NodeApiError (the server's message, no token): pass it on unchanged;
		// anything else (not expected) is wrapped so the node still fails with a node error.
		throw error instanceof NodeApiError
			? error
			: new NodeApiError(ctx.getNode(), error as JsonObject);
	}
	const body = isPlainObject(response) ? response : {};
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
 * and carry that secret. Anything else (settings changed elsewhere, static data lost, another URL)
 * answers false, and n8n calls create, which registers afresh.
 */
export async function registrationExists(ctx: IHookFunctions): Promise<boolean> {
	const url = webhookUrlOf(ctx);
	const registration = staticData(ctx).registrations?.[url];
	if (!registration) return false;
	if (registration.secret !== undefined) forgetPlainSecrets(ctx);
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

/** Replaces the secrets of registrations made before only hashes were kept by their hashes. */
function forgetPlainSecrets(ctx: IHookFunctions) {
	const registrations: Record<string, Registration> = {};
	for (const [url, registration] of Object.entries(staticData(ctx).registrations ?? {})) {
		const kept: Registration = { ...registration, secretHash: secretHashOf(registration) };
		delete kept.secret;
		registrations[url] = kept;
	}
	storeRegistrations(ctx, registrations);
}

/** Registers this node's URL with a fresh secret and records it in the static data. */
export async function register(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const isTest = ctx.getActivationMode() === 'manual';
	let replaced: ReplacedSettings | undefined;
	if (isTest) {
		// Listening in the editor displaces the current setting (usually the production URL).
		const current = await readWebhookSettings(ctx);
		if (current && current.url !== url) replaced = { url: current.url, headers: current.headers };
	}

	const secret = generateSecret();
	await saveWebhookSettings(ctx, { url, headers: { [AUTOMATIC_SECRET_HEADER]: secret } });

	const registration: Registration = {
		url,
		headerName: AUTOMATIC_SECRET_HEADER,
		secretHash: hashSecret(secret),
		registeredAt: new Date().toISOString(),
		test: isTest,
		...(replaced ? { replaced } : {}),
	};
	storeRegistrations(ctx, { ...(staticData(ctx).registrations ?? {}), [url]: registration });
}

/**
 * Takes this node's URL off the site: when the service still delivers to it, the webhook URL and
 * headers are cleared, or, for a test registration, the setting it displaced is put back. A setting
 * someone changed in the meantime (another URL) is left alone. The registration leaves the static
 * data either way.
 */
export async function unregister(ctx: IHookFunctions): Promise<void> {
	const url = webhookUrlOf(ctx);
	const registrations = { ...(staticData(ctx).registrations ?? {}) };
	const registration = registrations[url];

	const current = await readWebhookSettings(ctx);
	const pointsHere = current === undefined ? registration !== undefined : current.url === url;
	if (pointsHere) {
		const restore = registration?.replaced;
		await saveWebhookSettings(ctx, {
			url: restore?.url ?? null,
			headers: restore?.url ? restore.headers : null,
		});
	}

	delete registrations[url];
	storeRegistrations(ctx, registrations);
}
