/**
 * Shared set-up of the contact-form trigger tests: a reference server (fast delivery retries), the
 * webhook harness with the trigger node and this package's credential types, and small helpers.
 */
import axios, { type AxiosResponse } from 'axios';
import { createServer } from 'http';
import type { AddressInfo } from 'net';
import type { IDataObject, INodeCredentials, INodeParameters } from 'n8n-workflow';

import { SiteContactFormSecretApi } from '../../credentials/SiteContactFormSecretApi.credentials';
import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';
import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import { SiteContactFormTrigger } from '../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node';
import type { ServerOptions } from '../../reference-server/src';
import { startTestSite, type TestSite, type TestTenant } from './reference-server';
import { WebhookHarness, type TriggerWorkflow } from './webhook-context';

export const TRIGGER_TYPE = 'siteContactFormTrigger';
export const SECRET_HEADER = 'x-site-webhook-secret';

interface ContactFormContext {
	site: TestSite;
	harness: WebhookHarness;
	/** A new tenant with a `siteTenantApi` credential. */
	tenant(prefix: string): Promise<TenantWithCredential>;
	/** A workflow holding the trigger. */
	trigger(parameters: INodeParameters, credentials?: INodeCredentials): TriggerWorkflow;
}

export interface TenantWithCredential extends TestTenant {
	credential: INodeCredentials;
}

let tenantCount = 0;

export function useContactFormContext(options: Partial<ServerOptions> = {}): ContactFormContext {
	const context = {} as ContactFormContext;
	beforeAll(async () => {
		const site = await startTestSite({ deliveryRetryBaseMs: 20, ...options });
		const harness = await WebhookHarness.start({
			nodeTypes: { [TRIGGER_TYPE]: new SiteContactFormTrigger() },
			credentialTypes: [
				new SiteTenantApi(),
				new SiteManagedTenantApi(),
				new SiteContactFormSecretApi(),
			],
		});
		Object.assign(context, {
			site,
			harness,
			tenant: async (prefix: string) => {
				const tenant = await site.createTenant(`${prefix}-${++tenantCount}`);
				const credential = harness.credentials.add('siteTenantApi', {
					baseUrl: site.url,
					token: tenant.token,
					tenantId: tenant.id,
				});
				return { ...tenant, credential };
			},
			trigger: (parameters: INodeParameters, credentials?: INodeCredentials) =>
				harness.workflow({ type: TRIGGER_TYPE, parameters, credentials }),
		});
	});
	afterAll(async () => {
		await context.harness?.close();
		await context.site?.close();
	});
	return context;
}

export interface WebhookSettings {
	contact_form_webhook_url: string | null;
	contact_form_webhook_headers: Record<string, string> | null;
}

/** The tenant's settings as the server reports them (GET /api/settings). */
export async function readSettings(tenant: TestTenant): Promise<WebhookSettings> {
	const response = await tenant.client.get('/api/settings');
	if (response.status !== 200)
		throw new Error(`GET /api/settings: ${response.status} ${JSON.stringify(response.data)}`);
	return response.data.settings as WebhookSettings;
}

/** Changes the tenant's settings directly (someone else editing them). */
export async function writeSettings(
	tenant: TestTenant,
	settings: Partial<WebhookSettings>,
): Promise<void> {
	const response = await tenant.client.post('/api/settings', settings);
	if (response.status !== 200)
		throw new Error(`POST /api/settings: ${response.status} ${JSON.stringify(response.data)}`);
}

/** A visitor sends the contact form; returns the submission id. */
export async function submit(
	site: TestSite,
	tenantId: string,
	fields: IDataObject,
): Promise<string> {
	const response = await axios.post(`${site.url}/forms/${tenantId}/contact`, fields, {
		validateStatus: () => true,
	});
	if (response.status !== 202)
		throw new Error(`submit: ${response.status} ${JSON.stringify(response.data)}`);
	return response.data.submission_id as string;
}

/** The server's delivery record of a submission (GET /api/contact-form/deliveries). */
export async function deliveryOf(
	tenant: TestTenant,
	submissionId: string,
): Promise<IDataObject | undefined> {
	const response = await tenant.client.get('/api/contact-form/deliveries', {
		params: { per_page: 100 },
	});
	if (response.status !== 200) throw new Error(`deliveries: ${response.status}`);
	return (response.data.data as IDataObject[]).find(
		(delivery) => delivery.submission_id === submissionId,
	);
}

/** Waits for the delivery of a submission to reach a state. */
export async function waitForDelivery(
	tenant: TestTenant,
	submissionId: string,
	state: string,
	timeoutMs = 10_000,
) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const delivery = await deliveryOf(tenant, submissionId);
		if (delivery?.state === state) return delivery;
		if (Date.now() > deadline)
			throw new Error(
				`delivery ${submissionId}: ${JSON.stringify(delivery)} never became ${state}`,
			);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

/** POSTs straight to a webhook URL (a forger, or a redelivery), raw body and headers as given. */
export async function postTo(
	url: string,
	body: unknown,
	headers: Record<string, string> = {},
	raw = false,
): Promise<AxiosResponse> {
	return await axios.post(url, raw ? body : JSON.stringify(body), {
		headers: { 'content-type': 'application/json', ...headers },
		validateStatus: () => true,
		transformRequest: [(data: unknown) => data],
	});
}

/** A URL on 127.0.0.1 whose port refuses connections (a site that is down). */
export async function closedPortUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}

/** A submission body as the site sends it. */
export function submissionBody(
	tenantId: string,
	fields: IDataObject,
	id = `sub-${Math.random().toString(36).slice(2)}`,
) {
	return {
		submission_id: id,
		tenant_id: tenantId,
		form: 'contact',
		submitted_at: new Date().toISOString(),
		fields,
	};
}
