/**
 * Every row of docs/real-deployment.md's table, in n8n's engine, against the reference server with
 * its extensions off (`extensions: false`, the server's --no-extensions): what the nodes do against a
 * deployment of the described service. Each describe names its row.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject, INodeCredentials } from 'n8n-workflow';

import { SitePageTrigger } from '../../nodes/SitePageTrigger/SitePageTrigger.node';
import {
	postTo,
	SECRET_HEADER,
	submissionBody,
	submit,
	useContactFormContext,
	writeSettings,
	type TenantWithCredential,
	type WebhookSettings,
} from '../harness/contact-form';
import { listSearch } from '../harness/list-search';
import { jsonOf, seedPages, useNodeTestContext } from '../harness/nodes';
import { PollTriggerWorkflow } from '../harness/poll-trigger';
import type { WebhookCall } from '../harness/webhook-context';

const OFF = { extensions: false };
const ctx = useNodeTestContext(OFF);
const forms = useContactFormContext(OFF);

/** The warnings n8n's logger gets from here on (the nodes log through it: ctx.logger). */
function watchWarnings(): { messages: () => string[]; restore: () => void } {
	const spy = jest.spyOn(Container.get(Logger), 'warn');
	return {
		messages: () => spy.mock.calls.map(([message]) => String(message)),
		restore: () => spy.mockRestore(),
	};
}

/** The settings through the described API: POST /api/settings with nothing to change answers them. */
async function settingsOf(tenant: TenantWithCredential): Promise<WebhookSettings> {
	const response = await tenant.client.post('/api/settings', {});
	expect(response.status).toBe(200);
	return response.data.settings as WebhookSettings;
}

/** Without the deliveries listing, a delivery is seen where it arrives: the webhook harness. */
async function callsOf(submissionId: string, count = 1): Promise<WebhookCall[]> {
	return await forms.harness.waitForCalls((call) => call.requestBody.includes(submissionId), count);
}

test('the server runs without its extensions', async () => {
	for (const site of [ctx.site, forms.site]) {
		expect(site.server.config.extensions).toBe(false);
		expect((await site.admin.get('/api/tenants')).status).toBe(404);
	}
});

describe('row: Admin node, Tenant node operations, Site Management Trigger need the described API only', () => {
	test('the Admin node creates a tenant and issues it a token', async () => {
		const created = await ctx.adminNode({
			resource: 'tenant',
			operation: 'create',
			id: 'off-admin',
		});
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ message: 'Tenant created successfully.' });
		const issued = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'off-admin',
			expiresIn: 600,
		});
		expect(issued.error).toBeUndefined();
		expect(issued.items[0].json).toMatchObject({ tenant_id: 'off-admin', token_type: 'Bearer' });
	});

	test('the Tenant node creates a page and reads the sitemap', async () => {
		const tenant = await ctx.tenant('off-tenant-node');
		const page = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'About',
			url: '/about',
			locale: 'en',
		});
		expect(page.error).toBeUndefined();
		const sitemap = await tenant.run({ resource: 'sitemap', operation: 'get' });
		expect(sitemap.error).toBeUndefined();
		expect(sitemap.items[0].json.pages).toEqual([expect.objectContaining({ url: '/about' })]);
		expect(sitemap.items[0].json).not.toHaveProperty('tenant_id');
	});

	test('the Site Management Trigger reports a published page', async () => {
		const tenant = await ctx.tenant('off-page-trigger');
		const workflow = new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
			type: 'sitePageTrigger',
			parameters: { events: ['pagePublished'] },
			credentials: tenant.credential,
		});
		await workflow.activate();
		await seedPages(tenant.client, [{ url: '/new' }]);
		const polled = await workflow.poll();
		expect(polled.error).toBeUndefined();
		expect(jsonOf(polled.items ?? [])).toEqual([
			expect.objectContaining({ event: 'pagePublished', url: '/new' }),
		]);
	});
});

describe("row: Tenant node's Tenant parameter", () => {
	test('By ID (POST /api/tenant/token, described) works with a Managed Tenant credential', async () => {
		const tenant = await ctx.tenant('off-by-id');
		const credentials = ctx.managedCredential('', { tenantScope: 'any' });
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: {
				authentication: 'managedTenant',
				tenant: { __rl: true, mode: 'id', value: 'off-by-id' },
				resource: 'page',
				operation: 'create',
				name: 'By ID',
				url: '/by-id',
				locale: 'en',
			},
		});
		expect(result.error).toBeUndefined();
		const pages = await tenant.client.get('/api/pages');
		expect(pages.data.data.map((page: IDataObject) => page.url)).toEqual(['/by-id']);
	});

	test('From List (GET /api/tenants, extension): the list says to give the tenant By ID', async () => {
		const credentials = ctx.managedCredential('', { tenantScope: 'any' });
		await expect(
			listSearch(ctx.runner, {
				type: 'siteTenant',
				method: 'searchTenants',
				parameters: { authentication: 'managedTenant' },
				credentials,
			}),
		).rejects.toThrow(
			'This Site Management Service cannot list its tenants: name the tenant By ID',
		);
	});
});

test('row: Page From List, typing to search (search, extension): the list shows every page, unfiltered', async () => {
	const tenant = await ctx.tenant('off-page-list');
	await seedPages(tenant.client, [{ url: '/alpha' }, { url: '/beta' }, { url: '/gamma' }]);
	const result = await listSearch(ctx.runner, {
		type: 'siteTenant',
		method: 'searchPages',
		parameters: { resource: 'page', operation: 'get' },
		credentials: tenant.credential,
		filter: 'alpha',
	});
	expect(result.results.map((entry) => entry.value)).toEqual(['/alpha', '/beta', '/gamma']);
});

test("row: trigger items' tenant_id (sitemap tenant_id, extension): null with a Tenant Token credential, named by a Managed Tenant one", async () => {
	const tenant = await ctx.tenant('off-tenant-id');
	const managed = ctx.managedCredential('off-tenant-id');
	const tenantIdsOf = async (credentials: INodeCredentials, authentication: string) => {
		const workflow = new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
			type: 'sitePageTrigger',
			parameters: { authentication, events: ['pagePublished'] },
			credentials,
		});
		await workflow.activate();
		await seedPages(tenant.client, [{ url: `/seen-by-${authentication.toLowerCase()}` }]);
		const polled = await workflow.poll();
		expect(polled.error).toBeUndefined();
		return jsonOf(polled.items ?? []).map((item) => [item.url, item.tenant_id]);
	};
	expect(await tenantIdsOf(tenant.credential, 'tenantToken')).toEqual([
		['/seen-by-tenanttoken', null],
	]);
	expect(await tenantIdsOf(managed, 'managedTenant')).toEqual([
		['/seen-by-managedtenant', 'off-tenant-id'],
	]);
});

describe('Contact Form Trigger rows', () => {
	let warnings: ReturnType<typeof watchWarnings>;
	beforeEach(() => (warnings = watchWarnings()));
	afterEach(() => warnings.restore());

	/** A tenant and a trigger activated with Automatic registration; the secret the site was given. */
	async function activeTrigger(prefix: string) {
		const tenant = await forms.tenant(prefix);
		const trigger = forms.trigger({}, tenant.credential);
		expect(await trigger.activate()).toBe(true);
		const settings = await settingsOf(tenant);
		const secret = String(settings.contact_form_webhook_headers?.['X-Site-Webhook-Secret']);
		return { tenant, trigger, settings, secret };
	}

	/**
	 * Manual registration: the trigger listens (production: activated; test: the editor listens) and
	 * the site's webhook setting is put at its URL with the credential's secret header, by hand.
	 */
	async function manualTrigger(tenant: TenantWithCredential, url: 'production' | 'test') {
		const secret = `manual-secret-${tenant.id}-0123456789abcdef`;
		const credential = forms.harness.credentials.add('siteContactFormSecretApi', {
			tenantId: tenant.id,
			headerName: 'X-Form-Key',
			secret,
		});
		const trigger = forms.trigger({ registration: 'manual' }, credential);
		if (url === 'production') await trigger.activate();
		else await trigger.listen();
		await writeSettings(tenant, {
			contact_form_webhook_url: url === 'production' ? trigger.productionUrl : trigger.testUrl,
			contact_form_webhook_headers: { 'X-Form-Key': secret },
		});
		return trigger;
	}

	test("automatic registration: the webhook settings are the contract's, so activation registers and deliveries start the workflow", async () => {
		const { tenant, trigger, settings, secret } = await activeTrigger('off-auto');
		expect(settings.contact_form_webhook_url).toBe(trigger.productionUrl);
		expect(secret).toMatch(/^[0-9a-f]{64}$/);
		const submissionId = await submit(forms.site, tenant.id, { message: 'hello' });
		const [call] = await callsOf(submissionId);
		expect(call.items?.map((item) => item.json)).toEqual([
			expect.objectContaining({ submission_id: submissionId, fields: { message: 'hello' } }),
		]);
		expect(await trigger.deactivate()).toBe(true);
		expect((await settingsOf(tenant)).contact_form_webhook_url).toBeNull();
	});

	test('a Tenant Token credential without a Tenant ID cannot register: the service does not say its tenant', async () => {
		const tenant = await forms.tenant('off-no-tenant');
		const credential = forms.harness.credentials.add('siteTenantApi', {
			baseUrl: forms.site.url,
			token: tenant.token,
		});
		await expect(forms.trigger({}, credential).activate()).rejects.toThrow(
			/fill in the credential's Tenant ID/,
		);
		expect((await settingsOf(tenant)).contact_form_webhook_url).toBeNull();
	});

	test('registration by hand (Manual) receives deliveries', async () => {
		const tenant = await forms.tenant('off-manual');
		await manualTrigger(tenant, 'production');
		const submissionId = await submit(forms.site, tenant.id, { message: 'by hand' });
		const [call] = await callsOf(submissionId);
		expect(call.items?.map((item) => item.json.submission_id)).toEqual([submissionId]);
	});

	test('checking a registration still holds (GET /api/settings, extension): it trusts its stored registration, with a warning', async () => {
		const { tenant, trigger } = await activeTrigger('off-check');
		// Someone points the site elsewhere: with GET /api/settings the node would notice; here it cannot.
		await writeSettings(tenant, { contact_form_webhook_url: 'http://127.0.0.1:9/elsewhere' });
		expect(await trigger.checkExists()).toBe(true);
		expect(warnings.messages()).toContainEqual(
			expect.stringMatching(/cannot report its settings.*relying on the stored registration/),
		);
	});

	test('a test run (test webhooks, extension): listening with Automatic registration stops with a clear error and changes nothing; Manual registration gets the test event', async () => {
		const { tenant, trigger, settings } = await activeTrigger('off-listen');
		await expect(trigger.listen()).rejects.toThrow(
			/can neither send test copies nor report its settings/,
		);
		expect(await settingsOf(tenant)).toEqual(settings);
		expect(trigger.testStaticData?.registrations).toBeUndefined();

		const manual = await manualTrigger(tenant, 'test');
		const submissionId = await submit(forms.site, tenant.id, { message: 'test event' });
		const [call] = await callsOf(submissionId);
		expect([call.isTest, call.items?.length]).toEqual([true, 1]);
		await manual.stopListening();
	});

	test('a repeated delivery (claims, extension): recognised within this n8n process, with a warning', async () => {
		const { tenant, trigger, secret } = await activeTrigger('off-repeat');
		const submissionId = await submit(forms.site, tenant.id, { message: 'once' });
		const [first] = await callsOf(submissionId);
		expect(first.items).toHaveLength(1);
		// The site delivers the same submission again (its 2xx was lost).
		const again = await postTo(
			trigger.productionUrl,
			submissionBody(tenant.id, { message: 'once' }, submissionId),
			{
				[SECRET_HEADER]: secret,
			},
		);
		expect(again.status).toBe(200);
		expect(again.data).toMatchObject({
			message: 'Submission already received',
			submission_id: submissionId,
		});
		const calls = await callsOf(submissionId, 2);
		expect(calls.map((call) => call.items !== undefined)).toEqual([true, false]);
		expect(warnings.messages()).toContainEqual(
			expect.stringMatching(/no claims endpoint.*within this n8n process only/),
		);
	});
});
