/**
 * The calls automatic registration makes on one tenant's site: its contact-form settings and its test
 * webhooks. Each names the tenant it is for (a trigger may serve several with one Managed Tenant
 * credential; the transport keeps every one within the credential's scope).
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import type { TenantCheck } from '../shared/target';
import { resolveTenantTarget } from '../shared/target';
import type { SiteRequestOptions } from '../shared/transport';
import { siteRequest } from '../shared/transport';
import { extensionRequest } from './extension';

const SETTINGS_PATH = '/api/settings';
const TEST_WEBHOOKS_PATH = '/api/contact-form/test-webhooks';
/** How long the site sends test copies: longer than n8n listens (10 minutes at most). */
const TEST_WEBHOOK_TTL_SECONDS = 660;

/** The contact-form part of the tenant's settings as the service reports them. */
export interface WebhookSettings {
	url: string | null;
	headers: IDataObject | null;
}

/**
 * A tenant's site as the trigger reaches it: one it serves (within the credential's scope), or one
 * it registered with and takes its registration off (registeredSite.ts). A Tenant Token's own tenant
 * is decided by its token.
 */
export interface TenantSite {
	tenantId: string;
	check: TenantCheck;
}

export const servedSite = (tenantId: string): TenantSite => ({ tenantId, check: 'scope' });

async function forTenant(ctx: IHookFunctions, site: TenantSite): Promise<SiteRequestOptions> {
	return { itemIndex: 0, target: await resolveTenantTarget(ctx, 0, site.tenantId, site.check) };
}

/**
 * The service's current contact-form settings (`GET /api/settings`, an extension of the reference
 * server). Returns undefined when the service has no such endpoint (404/405): callers then rely on
 * the static data alone.
 */
export async function readWebhookSettings(
	ctx: IHookFunctions,
	site: TenantSite,
): Promise<WebhookSettings | undefined> {
	const response = await extensionRequest(
		ctx,
		{ method: 'GET', path: SETTINGS_PATH },
		await forTenant(ctx, site),
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

export async function saveWebhookSettings(
	ctx: IHookFunctions,
	site: TenantSite,
	settings: WebhookSettings,
): Promise<void> {
	await siteRequest.call(
		ctx,
		{
			method: 'POST',
			path: SETTINGS_PATH,
			body: {
				contact_form_webhook_url: settings.url,
				contact_form_webhook_headers: settings.headers,
			},
		},
		await forTenant(ctx, site),
	);
}

/** Whether the tenant's site still sends copies to this test URL (it lists test webhooks without headers). */
export async function testWebhookListed(
	ctx: IHookFunctions,
	site: TenantSite,
	url: string,
): Promise<boolean> {
	const response = await extensionRequest(
		ctx,
		{ method: 'GET', path: TEST_WEBHOOKS_PATH },
		await forTenant(ctx, site),
	);
	const listed = isPlainObject(response?.body) ? response.body.data : undefined;
	return Array.isArray(listed) && listed.some((entry) => isPlainObject(entry) && entry.url === url);
}

/** Asks the tenant's site for test copies at `url`; false when the service has no test webhooks. */
export async function addTestWebhook(
	ctx: IHookFunctions,
	site: TenantSite,
	url: string,
	headers: IDataObject,
): Promise<boolean> {
	const copies = await extensionRequest(
		ctx,
		{
			method: 'POST',
			path: TEST_WEBHOOKS_PATH,
			body: { url, headers, ttl_seconds: TEST_WEBHOOK_TTL_SECONDS },
		},
		await forTenant(ctx, site),
	);
	return copies !== undefined;
}

export async function removeTestWebhook(
	ctx: IHookFunctions,
	site: TenantSite,
	url: string,
): Promise<void> {
	await extensionRequest(
		ctx,
		{ method: 'DELETE', path: TEST_WEBHOOKS_PATH, body: { url } },
		await forTenant(ctx, site),
	);
}
