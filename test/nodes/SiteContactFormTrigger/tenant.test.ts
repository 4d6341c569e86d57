/**
 * A delivery speaks for the tenant the trigger registered for and no other (issue 38): whoever holds
 * tenant A's token can read A's webhook URL and secret, so a body naming tenant "victim" posted to
 * A's trigger must start nothing, with or without a submission_id, in either registration mode.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	postTo,
	readSettings,
	SECRET_HEADER,
	submissionBody,
	useContactFormContext,
} from '../../harness/contact-form';
import { managedCredentialData } from '../../harness/reference-server';

const ctx = useContactFormContext();
const MANUAL_SECRET = 'a-long-manual-secret-0123456789abcdef';

/** Posts `body` and tells the answer's status and whether a workflow run started. */
async function deliver(url: string, body: IDataObject, headers: Record<string, string>) {
	const before = ctx.harness.calls.length;
	const answer = await postTo(url, body, headers);
	const started = ctx.harness.calls.slice(before).some((call) => call.items !== undefined);
	return { status: answer.status, error: (answer.data as IDataObject)?.error, started };
}

/** The forged bodies: another tenant, with and without submission_id, and no tenant at all. */
function forgeries(victim: string) {
	const withId = submissionBody(victim, { name: 'Mallory' });
	const { submission_id: _dropped, ...withoutId } = submissionBody(victim, { name: 'Mallory' });
	const { tenant_id: _none, ...noTenant } = submissionBody(victim, {});
	return [
		{ body: withId as IDataObject, status: 403 },
		{ body: withoutId as IDataObject, status: 403 },
		{ body: noTenant as IDataObject, status: 400 },
	];
}

async function expectRefused(url: string, victim: string, headers: Record<string, string>) {
	for (const { body, status } of forgeries(victim)) {
		expect({ body, ...(await deliver(url, body, headers)) }).toMatchObject({
			body,
			status,
			started: false,
		});
	}
}

describe('automatic registration', () => {
	test('Tenant Token: another tenant_id is refused 403 and starts nothing; its own starts', async () => {
		const tenant = await ctx.tenant('cf-own');
		const victim = await ctx.tenant('cf-victim');
		const trigger = ctx.trigger({}, tenant.credential);
		expect(await trigger.activate()).toBe(true);
		expect(trigger.staticData.registrations).toMatchObject({
			[trigger.productionUrl]: { tenantId: tenant.id },
		});
		const secret = (await readSettings(tenant)).contact_form_webhook_headers?.[
			'X-Site-Webhook-Secret'
		] as string;
		await expectRefused(trigger.productionUrl, victim.id, { [SECRET_HEADER]: secret });
		const own = await deliver(trigger.productionUrl, submissionBody(tenant.id, { a: 1 }), {
			[SECRET_HEADER]: secret,
		});
		expect(own).toMatchObject({ status: 200, started: true });
	});

	test('Managed Tenant: the tenant of the credential, and no other', async () => {
		const tenant = await ctx.tenant('cf-managed');
		const victim = await ctx.tenant('cf-managed-victim');
		const credential = ctx.harness.credentials.add(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, tenant.id),
		);
		const trigger = ctx.trigger({ authentication: 'managedTenant' }, credential);
		expect(await trigger.activate()).toBe(true);
		const secret = (await readSettings(tenant)).contact_form_webhook_headers?.[
			'X-Site-Webhook-Secret'
		] as string;
		await expectRefused(trigger.productionUrl, victim.id, { [SECRET_HEADER]: secret });
		expect(
			await deliver(trigger.productionUrl, submissionBody(tenant.id, {}), {
				[SECRET_HEADER]: secret,
			}),
		).toMatchObject({ status: 200, started: true });
	});

	test('Managed Tenant: a Tenant ID outside the scope does not register', async () => {
		const tenant = await ctx.tenant('cf-outside');
		const credential = ctx.harness.credentials.add(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, tenant.id, {
				tenantScope: 'listed',
				allowedTenants: 'client-*',
			}),
		);
		const trigger = ctx.trigger({ authentication: 'managedTenant' }, credential);
		await expect(trigger.activate()).rejects.toThrow(/may not act on tenant "cf-outside/);
		expect((await readSettings(tenant)).contact_form_webhook_url).toBeNull();
	});

	test('Tenant Token: a credential Tenant ID the site contradicts stops the activation', async () => {
		const tenant = await ctx.tenant('cf-contradicted');
		const credential = ctx.harness.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: tenant.token,
			tenantId: 'someone-else',
		});
		const trigger = ctx.trigger({}, credential);
		await expect(trigger.activate()).rejects.toThrow(
			new RegExp(
				`belongs to tenant "${tenant.id}", but the credential's Tenant ID says "someone-else"`,
			),
		);
		expect((await readSettings(tenant)).contact_form_webhook_url).toBeNull();
	});

	test('a registration recorded without its tenant (an earlier version) is made afresh', async () => {
		const tenant = await ctx.tenant('cf-legacy');
		const trigger = ctx.trigger({}, tenant.credential);
		expect(await trigger.activate()).toBe(true);
		const registrations = trigger.staticData.registrations as Record<string, IDataObject>;
		delete registrations[trigger.productionUrl].tenantId;
		expect(await trigger.checkExists()).toBe(false);
	});
});

describe('manual registration', () => {
	const manual = (tenantId: string) =>
		ctx.harness.credentials.add('siteContactFormSecretApi', {
			tenantId,
			headerName: 'X-Form-Key',
			secret: MANUAL_SECRET,
		});

	test("the secret credential's Tenant ID is the only tenant taken", async () => {
		const tenant = await ctx.tenant('cf-manual');
		const victim = await ctx.tenant('cf-manual-victim');
		const trigger = ctx.trigger({ registration: 'manual' }, manual(tenant.id));
		// Nothing to create: the user registered the URL on the site.
		expect(await trigger.activate()).toBe(false);
		await expectRefused(trigger.productionUrl, victim.id, { 'X-Form-Key': MANUAL_SECRET });
		expect(
			await deliver(trigger.productionUrl, submissionBody(tenant.id, {}), {
				'X-Form-Key': MANUAL_SECRET,
			}),
		).toMatchObject({ status: 200, started: true });
	});

	test('without a Tenant ID the activation stops, saying so', async () => {
		const trigger = ctx.trigger({ registration: 'manual' }, manual(''));
		await expect(trigger.activate()).rejects.toThrow(/Tenant ID is empty/);
	});
});
