/**
 * The trigger's record of where it registered, in the node's static data: one registration per
 * tenant and webhook URL (production and, while the editor listens, test), each with the tenant, the
 * base URL it went through and the hash of its secret (never the secret: static data goes into every
 * workflow export, backup and n8n's cache of test webhooks).
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

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

export type TestRoute = 'copies' | 'settings';

interface TriggerStaticData extends IDataObject {
	registrations?: Record<string, Registration>;
}

function staticData(ctx: IHookFunctions | IWebhookFunctions): TriggerStaticData {
	return ctx.getWorkflowStaticData('node') as TriggerStaticData;
}

export function allRegistrations(ctx: IHookFunctions | IWebhookFunctions): Registration[] {
	return Object.values(staticData(ctx).registrations ?? {});
}

export function secretHashOf(registration: Registration): string {
	return typeof registration.secretHash === 'string' ? registration.secretHash : '';
}

/** Whether a record names its tenant (one made before tenants were recorded does not). */
export const hasTenant = (
	registration: Registration,
): registration is Registration & { tenantId: string } =>
	typeof registration.tenantId === 'string' && registration.tenantId !== '';

/**
 * Stores `registrations` as the whole set for `url`; the other URL's stay. Keyed by URL when the URL
 * serves one tenant (as before triggers served several, so such static data does not change), else
 * by tenant and URL. Readers go by the records' fields, never by the key.
 */
export function storeRegistrationsAt(
	ctx: IHookFunctions,
	url: string,
	registrations: Registration[],
): void {
	const kept = allRegistrations(ctx).filter((registration) => registration.url !== url);
	storeAll(ctx, [...kept, ...registrations]);
}

/** Takes `removed` (records as read from the static data) out of it; the others stay. */
export function forgetRegistrations(ctx: IHookFunctions, removed: Registration[]): void {
	const gone = new Set(removed);
	storeAll(
		ctx,
		allRegistrations(ctx).filter((registration) => !gone.has(registration)),
	);
}

function storeAll(ctx: IHookFunctions, registrations: Registration[]): void {
	const urls = [...new Set(registrations.map((registration) => registration.url))];
	const entries = urls.flatMap((url) => {
		const atUrl = registrations.filter((registration) => registration.url === url);
		return atUrl.map((registration) => [
			atUrl.length === 1 ? url : `${registration.tenantId ?? ''} ${url}`,
			registration,
		]);
	});
	// Assign a new object at the top level so n8n notices the change and saves the static data.
	staticData(ctx).registrations = Object.fromEntries(entries);
}

export function registrationsAt(ctx: IHookFunctions, url: string): Registration[] {
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
