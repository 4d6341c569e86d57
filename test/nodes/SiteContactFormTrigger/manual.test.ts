/**
 * Site Management Contact Form Trigger, manual registration: no API calls, the secret header name and
 * value come from the siteContactFormSecretApi credential, and the user enters the URL and header in
 * the site's settings (here: straight through the reference server's API).
 */
import type { ICredentialsDecrypted, ICredentialTestFunctions } from 'n8n-workflow';

import { SiteContactFormTrigger } from '../../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node';
import {
	deliveryOf,
	postTo,
	readSettings,
	submissionBody,
	submit,
	useContactFormContext,
	waitForDelivery,
	writeSettings,
} from '../../harness/contact-form';

// Without the server's set-up grace: a wrong secret's 401 stops the delivery at once (contract).
const ctx = useContactFormContext({ deliverySetupGraceMs: 0 });
const SECRET = 'a-long-manual-secret-0123456789abcdef';

function manualCredential(data: { headerName?: string; secret?: string; tenantId?: string } = {}) {
	return ctx.harness.credentials.add('siteContactFormSecretApi', {
		tenantId: data.tenantId ?? 'manual-none',
		headerName: data.headerName ?? 'X-Form-Key',
		secret: data.secret ?? SECRET,
	});
}

describe('manual registration', () => {
	test('activation and deactivation make no API calls and leave the site settings as the user set them', async () => {
		const tenant = await ctx.tenant('manual-lifecycle');
		const trigger = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ tenantId: tenant.id }),
		);
		const configured = {
			contact_form_webhook_url: trigger.productionUrl,
			contact_form_webhook_headers: { 'X-Form-Key': SECRET },
		};
		await writeSettings(tenant, configured);
		const before = await readSettings(tenant);

		// checkExists answers true at once (there is nothing to create): no credential for the API is
		// even configured on this node, so any API call would fail.
		expect(await trigger.checkExists()).toBe(true);
		expect(await trigger.activate()).toBe(false);
		expect(await trigger.deactivate()).toBe(true);
		expect(await readSettings(tenant)).toEqual(before);
		expect(trigger.staticData.registrations).toBeUndefined();
	});

	test('a submission the site delivers with the configured header starts the workflow', async () => {
		const tenant = await ctx.tenant('manual-deliver');
		const trigger = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ tenantId: tenant.id }),
		);
		await trigger.activate();
		await writeSettings(tenant, {
			contact_form_webhook_url: trigger.productionUrl,
			contact_form_webhook_headers: { 'X-Form-Key': SECRET },
		});
		const fields = { name: 'Linus', message: 'manual hello' };
		const submissionId = await submit(ctx.site, tenant.id, fields);
		expect(await waitForDelivery(tenant, submissionId, 'delivered')).toMatchObject({
			attempts: 1,
			last_status: 200,
		});
		const calls = ctx.harness.callsFor(submissionId);
		expect(calls).toHaveLength(1);
		expect(calls[0].requestHeaders['x-form-key']).toBe(SECRET);
		expect(calls[0].items?.map((item) => item.json)).toEqual([
			{
				submission_id: submissionId,
				tenant_id: tenant.id,
				form: 'contact',
				submitted_at: expect.any(String),
				fields,
			},
		]);
	});

	test("a wrong or missing secret answers 401; the site's delivery with the wrong one stops there", async () => {
		const tenant = await ctx.tenant('manual-wrong');
		const trigger = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ tenantId: tenant.id }),
		);
		await trigger.activate();
		const body = submissionBody(tenant.id, { message: 'x' });
		expect((await postTo(trigger.productionUrl, body, { 'X-Form-Key': `${SECRET}!` })).status).toBe(
			401,
		);
		expect((await postTo(trigger.productionUrl, body, {})).status).toBe(401);
		// The right value under another header name is not accepted.
		expect(
			(await postTo(trigger.productionUrl, body, { 'X-Site-Webhook-Secret': SECRET })).status,
		).toBe(401);
		expect(ctx.harness.callsFor(body.submission_id).every((call) => call.items === undefined)).toBe(
			true,
		);

		await writeSettings(tenant, {
			contact_form_webhook_url: trigger.productionUrl,
			contact_form_webhook_headers: { 'X-Form-Key': 'not-the-secret' },
		});
		const submissionId = await submit(ctx.site, tenant.id, { message: 'y' });
		expect(await waitForDelivery(tenant, submissionId, 'failed')).toMatchObject({
			attempts: 1,
			last_status: 401,
		});
		expect(ctx.harness.callsFor(submissionId).map((call) => call.items)).toEqual([undefined]);
	});

	test('the header name is matched whatever its case; the default name is X-Site-Webhook-Secret', async () => {
		const tenant = await ctx.tenant('manual-case');
		const trigger = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ headerName: 'x-FORM-key', tenantId: tenant.id }),
		);
		await trigger.activate();
		const ok = await postTo(trigger.productionUrl, submissionBody(tenant.id, {}), {
			'X-Form-Key': SECRET,
		});
		expect(ok.status).toBe(200);

		const defaults = ctx.trigger(
			{ registration: 'manual' },
			ctx.harness.credentials.add('siteContactFormSecretApi', {
				tenantId: tenant.id,
				headerName: '',
				secret: SECRET,
			}),
		);
		await defaults.activate();
		const viaDefault = await postTo(defaults.productionUrl, submissionBody(tenant.id, {}), {
			'X-Site-Webhook-Secret': SECRET,
		});
		expect(viaDefault.status).toBe(200);
	});

	test('a secret shorter than 16 characters (even 1, even empty) stops the activation with an error saying so', async () => {
		for (const secret of ['x', '', '15-characters!!']) {
			const trigger = ctx.trigger({ registration: 'manual' }, manualCredential({ secret }));
			await expect(trigger.activate()).rejects.toThrow(
				'The contact-form secret credential is not usable: The secret must be at least 16 characters long',
			);
		}
		const sixteen = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ secret: '16-characters!!!' }),
		);
		expect(await sixteen.activate()).toBe(false);
	});

	test('a secret shortened after activation lets nothing in: 500 naming the problem (the site retries), nothing started', async () => {
		const tenant = await ctx.tenant('manual-weakened');
		const credential = manualCredential({ tenantId: tenant.id });
		const trigger = ctx.trigger({ registration: 'manual' }, credential);
		await trigger.activate();
		ctx.harness.credentials.update(credential.siteContactFormSecretApi.id as string, {
			secret: 'x',
		});
		for (const headers of [{}, { 'X-Form-Key': '' }, { 'X-Form-Key': 'x' }] as Array<
			Record<string, string>
		>) {
			const answer = await postTo(trigger.productionUrl, submissionBody(tenant.id, {}), headers);
			expect(answer.status).toBe(500);
			expect(answer.data.message).toContain('at least 16 characters');
			expect(JSON.stringify(answer.data)).not.toContain(SECRET);
		}
		expect(
			ctx.harness.calls.filter(
				(call) => call.url === trigger.productionUrl && call.items !== undefined,
			),
		).toHaveLength(0);
	});

	test("Include Request Headers never shows the credential's header; repeats are ignored here too", async () => {
		const tenant = await ctx.tenant('manual-options');
		const trigger = ctx.trigger(
			{ registration: 'manual', options: { includeHeaders: true } },
			manualCredential({ tenantId: tenant.id }),
		);
		await trigger.activate();
		const body = submissionBody(tenant.id, { message: 'headers' });
		const first = await postTo(trigger.productionUrl, body, {
			'X-Form-Key': SECRET,
			'X-Visible': 'yes',
		});
		const again = await postTo(trigger.productionUrl, body, { 'X-Form-Key': SECRET });
		expect(first.data).toBe('');
		expect(again.data).toEqual({
			message: 'Submission already received',
			submission_id: body.submission_id,
		});
		const [call] = ctx.harness.callsFor(body.submission_id);
		const headers = call.items?.[0].json.headers as Record<string, string>;
		expect(headers['x-visible']).toBe('yes');
		expect(headers).not.toHaveProperty('x-form-key');
		expect(JSON.stringify(call.items)).not.toContain(SECRET);
	});

	test("the test URL works the same way once the user enters it in the site's settings", async () => {
		const tenant = await ctx.tenant('manual-test-url');
		const trigger = ctx.trigger(
			{ registration: 'manual' },
			manualCredential({ tenantId: tenant.id }),
		);
		expect(await trigger.listen()).toBe(false);
		await writeSettings(tenant, {
			contact_form_webhook_url: trigger.testUrl,
			contact_form_webhook_headers: { 'X-Form-Key': SECRET },
		});
		const submissionId = await submit(ctx.site, tenant.id, { message: 'test url' });
		await waitForDelivery(tenant, submissionId, 'delivered');
		const calls = ctx.harness.callsFor(submissionId);
		expect(calls.map((call) => [call.isTest, call.items?.length])).toEqual([[true, 1]]);
		await trigger.stopListening();
		// Stopping changes nothing on the site: the user owns the setting.
		expect((await readSettings(tenant)).contact_form_webhook_url).toBe(trigger.testUrl);
		expect(await deliveryOf(tenant, submissionId)).toMatchObject({ state: 'delivered' });
	});
});

describe('credential check (testedBy)', () => {
	const check = async (data: Record<string, string>) => {
		const credentialTest = new SiteContactFormTrigger().methods.credentialTest
			.siteContactFormSecretTest;
		const credential = {
			id: '1',
			name: 'secret',
			type: 'siteContactFormSecretApi',
			data,
		} as ICredentialsDecrypted;
		return await credentialTest.call({} as ICredentialTestFunctions, credential);
	};

	test('accepts a valid header name with a long secret', async () => {
		expect(
			await check({ tenantId: 'acme', headerName: 'X-Site-Webhook-Secret', secret: SECRET }),
		).toEqual({
			status: 'OK',
			message: 'Tenant ID, header name and secret are usable',
		});
	});

	test('rejects a short secret, a header name with spaces, and headers the site sets itself', async () => {
		expect(await check({ headerName: 'X-Key', secret: 'short' })).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('at least 16 characters'),
		});
		expect(await check({ headerName: 'X Key', secret: SECRET })).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('valid HTTP header name'),
		});
		expect(await check({ headerName: 'Content-Type', secret: SECRET })).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('set by the site itself'),
		});
		expect(await check({ headerName: 'X-Key', secret: `${SECRET}\nInjected: 1` })).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('line breaks'),
		});
	});

	test('rejects an empty or malformed Tenant ID', async () => {
		expect(await check({ headerName: 'X-Key', secret: SECRET })).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('Tenant ID is empty'),
		});
		expect(
			await check({ tenantId: 'Not A Tenant', headerName: 'X-Key', secret: SECRET }),
		).toMatchObject({
			status: 'Error',
			message: expect.stringContaining('is not a tenant ID'),
		});
	});
});
