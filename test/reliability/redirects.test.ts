/**
 * No request of the package follows a redirect. A loopback site answers
 * every request with a redirect to `localhost:<other port>`; the operations, list search, the
 * credential tests, the trigger's registration and claims and the managed credential's mint each
 * fail with an error naming both addresses, and the other port receives nothing (no token, no body).
 */
import type { INodeCredentials, INodeParameters } from 'n8n-workflow';

import {
	SECRET_HEADER,
	postTo,
	readSettings,
	submissionBody,
	useContactFormContext,
} from '../harness/contact-form';
import { credentialTestTypes, testCredential } from '../harness/credential-tester';
import { startDelayProxy } from '../harness/delay-proxy';
import { listSearch } from '../harness/list-search';
import { listPages, useNodeTestContext } from '../harness/nodes';
import { startRedirectSite, type RedirectSite } from '../harness/redirect-site';
import { managedCredentialData } from '../harness/reference-server';

const types = credentialTestTypes();
const ctx = useNodeTestContext({}, types.probes);
const forms = useContactFormContext();

let site: RedirectSite;
beforeAll(async () => {
	site = await startRedirectSite();
});
afterAll(async () => {
	await site?.close();
});
beforeEach(() => {
	site.status = 307;
	site.received.length = 0;
});

/** The error names the address asked and the one the redirect points to. */
function expectRedirectError(message: string | undefined, path: string, status = 307) {
	expect(message).toContain(`${site.url}${path}`);
	expect(message).toContain(`redirect (HTTP ${status}) to ${site.targetUrl}${path}`);
	expect(message).toContain('never redirects');
}

const redirectingTenant = (): INodeCredentials =>
	ctx.runner.credentials.add('siteTenantApi', { baseUrl: site.url, token: 'stt_not_for_others' });

async function runTenant(parameters: INodeParameters) {
	return await ctx.runner.runNode({
		type: 'siteTenant',
		credentials: redirectingTenant(),
		parameters,
	});
}

describe('the Tenant node does not follow a redirect', () => {
	test.each([301, 302, 303, 307, 308])(
		'Page > Get Many: HTTP %i is an error naming both addresses; the other port sees nothing',
		async (status) => {
			site.status = status;
			const result = await runTenant({ resource: 'page', operation: 'getAll', returnAll: true });
			expectRedirectError(result.error?.message, '/api/pages', status);
			expect(result.error?.httpCode).toBe(String(status));
			expect(site.received).toEqual([]);
		},
	);

	test('Notification > Send and Custom API Call (POST with a body) send nothing on', async () => {
		const send = await runTenant({
			resource: 'notification',
			operation: 'send',
			notificationId: 'n1',
			message: 'hi',
		});
		expectRedirectError(send.error?.message, '/api/notifications');
		const call = await runTenant({
			resource: 'customApiCall',
			operation: 'call',
			method: 'POST',
			path: '/api/chatbot',
			body: '{"question":"private"}',
		});
		expectRedirectError(call.error?.message, '/api/chatbot');
		expect(site.received).toEqual([]);
	});

	test('list search (the editor’s page list) fails the same way', async () => {
		await expect(
			listSearch(ctx.runner, {
				type: 'siteTenant',
				method: 'searchPages',
				parameters: { resource: 'page', operation: 'get' },
				credentials: redirectingTenant(),
				filter: 'about',
			}),
		).rejects.toThrow(`redirect (HTTP 307) to ${site.targetUrl}/api/pages`);
		expect(site.received).toEqual([]);
	});

	test('the address shown keeps neither a user name nor a password of the base URL', async () => {
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: site.url.replace('http://', 'http://user:secret-pass@'),
			token: 'stt_not_for_others',
		});
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: { resource: 'page', operation: 'getAll', returnAll: true },
		});
		expectRedirectError(result.error?.message, '/api/pages');
		expect(result.error?.message).not.toContain('secret-pass');
		expect(site.received).toEqual([]);
	});
});

describe('the admin token does not follow a redirect', () => {
	test('Admin node: Tenant > Create fails naming both addresses; the other port sees nothing', async () => {
		const credentials = ctx.runner.credentials.add('siteAdminApi', {
			baseUrl: site.url,
			token: ctx.site.adminToken,
		});
		const result = await ctx.runner.runNode({
			type: 'siteAdmin',
			credentials,
			parameters: { resource: 'tenant', operation: 'create', id: 'redirected' },
		});
		expectRedirectError(result.error?.message, '/api/tenant');
		expect(site.received).toEqual([]);
	});

	test('Managed Tenant: the mint (POST /api/tenant/token) does not follow; no token from the other host is used', async () => {
		const tenant = await ctx.site.createTenant('redirected-mint');
		const credentials = ctx.managedCredential(tenant.id, { adminBaseUrl: site.url });
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: 'Page',
				url: '/from-redirect',
				locale: 'en',
			},
		});
		expect(result.error?.message).toContain('Could not get a tenant token');
		expectRedirectError(result.error?.message, '/api/tenant/token');
		expect(site.received).toEqual([]);
		expect(await listPages(tenant.client)).toEqual([]);
		expect(JSON.stringify(result.error)).not.toContain(ctx.site.adminToken);
	});
});

describe('credential tests do not follow a redirect', () => {
	test.each([
		['Tenant API', types.tenant, () => ({ baseUrl: site.url, token: 'stt_not_for_others' })],
		['Admin API', types.admin, () => ({ baseUrl: site.url, token: ctx.site.adminToken })],
		[
			'Managed Tenant API (tenant base URL)',
			types.managed,
			() => managedCredentialData(ctx.site, 'cred-redirect', { baseUrl: site.url }),
		],
	] as const)('%s: the test fails with the redirect named', async (_label, type, data) => {
		await ctx.site.createTenant('cred-redirect').catch(() => undefined);
		for (const status of [301, 307, 308]) {
			site.status = status;
			const result = await testCredential(
				ctx.runner,
				type,
				ctx.runner.credentials.add(type.name, data()),
			);
			expect(result.status).toBe('Error');
			expect(result.message).toContain(`redirect (HTTP ${status})`);
		}
		expect(site.received).toEqual([]);
	});
});

describe('the Contact Form Trigger does not follow a redirect', () => {
	test('registration on activation fails naming both addresses; the other port sees nothing', async () => {
		const credential = forms.harness.credentials.add('siteTenantApi', {
			baseUrl: site.url,
			token: 'stt_not_for_others',
		});
		const trigger = forms.trigger({}, credential);
		await expect(trigger.activate()).rejects.toThrow(
			`redirect (HTTP 307) to ${site.targetUrl}/api/`,
		);
		expect(site.received).toEqual([]);
	});

	test('a claim that meets a redirect starts nothing and sends nothing on', async () => {
		const tenant = await forms.tenant('claim-redirect');
		// The trigger registers through an address that forwards to the site; later that address
		// answers with a redirect. Claims go to the address the trigger registered through (they read
		// no credential), so the claim meets the redirect.
		let upstream = forms.site.url;
		const proxy = await startDelayProxy(() => upstream);
		try {
			const credential = forms.harness.credentials.add('siteTenantApi', {
				baseUrl: proxy.url,
				token: tenant.token,
			});
			const trigger = forms.trigger({}, credential);
			expect(await trigger.activate()).toBe(true);
			const secret = (await readSettings(tenant)).contact_form_webhook_headers?.[
				'X-Site-Webhook-Secret'
			] as string;
			upstream = site.url;

			const body = submissionBody(tenant.id, { message: 'hello' });
			const answer = await postTo(trigger.productionUrl, body, { [SECRET_HEADER]: secret });
			expect(answer.status).toBeGreaterThanOrEqual(500);
			expect(
				proxy.log
					.filter((request) => request.path === `/forms/${tenant.id}/claims`)
					.map((request) => [request.method, request.status]),
			).toEqual([['POST', 307]]);
			expect(
				forms.harness.callsFor(body.submission_id).filter((call) => call.items !== undefined),
			).toHaveLength(0);
			expect(site.received).toEqual([]);
		} finally {
			await proxy.close();
		}
	});
});
