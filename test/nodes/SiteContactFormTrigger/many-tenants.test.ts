/**
 * One Contact Form Trigger serving several tenants with a Managed Tenant credential (issue 39, item
 * 5): n8n's HookContext drives checkExists/create/delete against the reference server, the server
 * delivers real submissions to the harness's webhook server, and n8n's WebhookContext runs webhook().
 */
import type { IDataObject, INodeCredentials } from 'n8n-workflow';

import {
	SECRET_HEADER,
	postTo,
	readSettings,
	submissionBody,
	submit,
	useContactFormContext,
	waitForDelivery,
	writeSettings,
	type TenantWithCredential,
} from '../../harness/contact-form';
import { startDelayProxy } from '../../harness/delay-proxy';
import { managedCredentialData } from '../../harness/reference-server';
import type { TriggerWorkflow } from '../../harness/webhook-context';

const ctx = useContactFormContext({ deliverySetupGraceMs: 0 });

async function tenants(prefix: string, count: number): Promise<TenantWithCredential[]> {
	return await Promise.all(Array.from({ length: count }, () => ctx.tenant(prefix)));
}

/** A Managed Tenant credential on the test site, scope Any unless told otherwise. */
function managed(overrides: IDataObject = {}): INodeCredentials {
	return ctx.harness.credentials.add(
		'siteManagedTenantApi',
		managedCredentialData(ctx.site, '', { tenantScope: 'any', ...overrides }),
	);
}

function servingList(ids: unknown, credential = managed()): TriggerWorkflow {
	return ctx.trigger(
		{ authentication: 'managedTenant', tenantsServed: 'list', tenantIds: ids as string },
		credential,
	);
}

async function secretOf(tenant: TenantWithCredential): Promise<string | undefined> {
	return (await readSettings(tenant)).contact_form_webhook_headers?.['X-Site-Webhook-Secret'];
}

/** Posts `body` with `secret` and tells the status and whether a workflow run started. */
async function deliver(url: string, body: IDataObject, secret: string) {
	const before = ctx.harness.calls.length;
	const answer = await postTo(url, body, { [SECRET_HEADER]: secret });
	const calls = ctx.harness.calls.slice(before);
	const items = calls.flatMap((call) => call.items ?? []);
	return { status: answer.status, started: items.length > 0, items };
}

async function urlsOf(list: TenantWithCredential[]) {
	return await Promise.all(
		list.map(async (tenant) => (await readSettings(tenant)).contact_form_webhook_url),
	);
}

describe('a list of tenants', () => {
	let served: TenantWithCredential[];
	let trigger: TriggerWorkflow;

	beforeAll(async () => {
		served = await tenants('mt-list', 3);
		trigger = servingList(served.map((tenant) => tenant.id).join(',\n'));
		expect(await trigger.activate()).toBe(true);
	});

	test('activation registers the URL with each tenant, each with its own secret; only hashes are kept', async () => {
		expect(await urlsOf(served)).toEqual(Array(3).fill(trigger.productionUrl));
		const secrets = await Promise.all(served.map(secretOf));
		expect(new Set(secrets).size).toBe(3);
		const registrations = Object.values(trigger.staticData.registrations as IDataObject);
		expect(registrations.map((registration) => (registration as IDataObject).tenantId)).toEqual(
			expect.arrayContaining(served.map((tenant) => tenant.id)),
		);
		expect(registrations).toHaveLength(3);
		for (const registration of registrations) {
			expect(registration).toMatchObject({ siteUrl: ctx.site.url, url: trigger.productionUrl });
		}
		const kept = JSON.stringify(trigger.staticData);
		for (const secret of secrets) expect(kept).not.toContain(secret);
		expect(await trigger.checkExists()).toBe(true);
	});

	test("a visitor's submission on each site starts the workflow with that site's tenant_id", async () => {
		for (const tenant of served) {
			const submissionId = await submit(ctx.site, tenant.id, { from: tenant.id });
			await waitForDelivery(tenant, submissionId, 'delivered');
			const [call] = ctx.harness.callsFor(submissionId);
			expect(call.items?.map((item) => item.json)).toEqual([
				expect.objectContaining({
					submission_id: submissionId,
					tenant_id: tenant.id,
					fields: { from: tenant.id },
				}),
			]);
		}
	});

	test("tenant A's secret with tenant B's tenant_id is refused 403 and starts nothing", async () => {
		const [a, b] = served;
		const secretA = (await secretOf(a)) as string;
		const forged = await deliver(trigger.productionUrl, submissionBody(b.id, {}), secretA);
		expect(forged).toMatchObject({ status: 403, started: false });
		const own = await deliver(trigger.productionUrl, submissionBody(a.id, {}), secretA);
		expect(own).toMatchObject({ status: 200, started: true });
		expect(own.items[0].json.tenant_id).toBe(a.id);
		const wrong = await deliver(trigger.productionUrl, submissionBody(a.id, {}), 'f'.repeat(64));
		expect(wrong).toMatchObject({ status: 401, started: false });
	});

	test("a tenant's setting changed elsewhere: checkExists is false, and create registers it again", async () => {
		const [, , c] = served;
		await writeSettings(c, {
			contact_form_webhook_url: 'https://elsewhere.example/hook',
			contact_form_webhook_headers: null,
		});
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf(served)).toEqual(Array(3).fill(trigger.productionUrl));
	});

	test('a tenant taken off the list: checkExists is false, and create clears that tenant', async () => {
		const [a, b, c] = served;
		trigger.workflow.getNode(trigger.node.name)!.parameters.tenantIds = `${a.id}, ${b.id}`;
		const oldSecretC = (await secretOf(c)) as string;
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf(served)).toEqual([trigger.productionUrl, trigger.productionUrl, null]);
		expect(Object.keys(trigger.staticData.registrations as IDataObject)).toHaveLength(2);
		expect(await trigger.checkExists()).toBe(true);
		// c's old secret opens nothing any more.
		expect(
			await deliver(trigger.productionUrl, submissionBody(c.id, {}), oldSecretC),
		).toMatchObject({ status: 401, started: false });
		trigger.workflow.getNode(trigger.node.name)!.parameters.tenantIds = served
			.map((tenant) => tenant.id)
			.join(',');
		expect(await trigger.activate()).toBe(true);
	});

	test('deactivation clears every tenant and the static data', async () => {
		await trigger.deactivate();
		expect(await urlsOf(served)).toEqual([null, null, null]);
		expect(trigger.staticData.registrations).toEqual({});
	});
});

describe('activation that fails', () => {
	test('a tenant that does not exist: the error names it, and no site is changed', async () => {
		const [a, b] = await tenants('mt-ghost', 2);
		const trigger = servingList([a.id, 'mt-no-such-tenant', b.id].join(','));
		const failure = trigger.activate();
		await expect(failure).rejects.toThrow(
			/could not register its URL with 1 of its 3 tenants: "mt-no-such-tenant": .*not found/,
		);
		await expect(failure).rejects.toMatchObject({ description: /^No site was changed/ });
		expect(await urlsOf([a, b])).toEqual([null, null]);
		expect(Object.keys((trigger.staticData.registrations as IDataObject) ?? {})).toEqual([]);
	});

	test('a tenant that does not exist: a site delivering to another workflow keeps that URL', async () => {
		// The test above starts from sites without a setting, where a setting written and then taken
		// back looks the same as one never touched; here the site already delivers elsewhere.
		const [a] = await tenants('mt-elsewhere', 1);
		const other = servingList(a.id);
		expect(await other.activate()).toBe(true);
		const failing = servingList([a.id, 'mt-no-such-tenant'].join(','));
		await expect(failing.activate()).rejects.toThrow(/"mt-no-such-tenant": .*not found/);
		expect(await urlsOf([a])).toEqual([other.productionUrl]);
		await other.deactivate();
	});

	test('a tenant that fails while the others are registered: those are taken back', async () => {
		const [a, b, c] = await tenants('mt-midway', 3);
		// Every tenant answered before any write; at the first write, c is renamed: its token stops
		// working and no tenant of its name is left, so its write fails while a's and b's go through.
		let renamed = false;
		const proxy = await startDelayProxy(() => ctx.site.url, {
			beforeForward: async (request) => {
				if (renamed || request.method !== 'POST' || request.path !== '/api/settings') return;
				renamed = true;
				const answer = await ctx.site.admin.put('/api/tenant', { old_id: c.id, id: `${c.id}-x` });
				expect(answer.status).toBe(200);
			},
		});
		try {
			const trigger = servingList([a.id, b.id, c.id].join(','), managed({ baseUrl: proxy.url }));
			await expect(trigger.activate()).rejects.toThrow(
				new RegExp(`with 1 of its 3 tenants: "${c.id}": .*not found`),
			);
			expect(renamed).toBe(true);
			const written = proxy.log.filter(
				(entry) => entry.method === 'POST' && entry.path === '/api/settings',
			);
			// a and b written, c's write refused (401, and no tenant of its name to mint for), then a
			// and b taken back (cleared).
			expect(written.map((entry) => entry.status).sort()).toEqual([200, 200, 200, 200, 401]);
			expect(await urlsOf([a, b])).toEqual([null, null]);
			expect(Object.keys((trigger.staticData.registrations as IDataObject) ?? {})).toEqual([]);
		} finally {
			await proxy.close();
		}
	});

	test('a tenant outside the scope: refused before anything is registered, named', async () => {
		const [a] = await tenants('mt-scope', 1);
		const trigger = servingList(
			`${a.id}, outsider`,
			managed({ tenantScope: 'listed', allowedTenants: 'mt-scope-*' }),
		);
		await expect(trigger.activate()).rejects.toThrow(
			/cannot serve a tenant: The Managed Tenant credential may not act on tenant "outsider"/,
		);
		expect(await urlsOf([a])).toEqual([null]);
	});

	test('an empty list, a malformed ID and more than 500 tenants are clear errors', async () => {
		await expect(servingList(' , ').activate()).rejects.toThrow(/Tenant IDs is empty/);
		await expect(servingList('Not A Tenant').activate()).rejects.toThrow(
			/"Not A Tenant" is not a tenant ID/,
		);
		const many = Array.from({ length: 501 }, (_, i) => `t-${i}`).join(',');
		await expect(servingList(many).activate()).rejects.toThrow(
			/Tenant IDs names 501 tenants: one trigger serves at most 500/,
		);
	});
});

describe('the tenants the credential allows', () => {
	test('patterns: every listed tenant the scope allows, and no other', async () => {
		const inScope = await tenants('mt-allowed', 2);
		const [outside] = await tenants('mt-other', 1);
		const trigger = ctx.trigger(
			{ authentication: 'managedTenant', tenantsServed: 'allowed' },
			managed({ tenantScope: 'listed', allowedTenants: 'mt-allowed-*' }),
		);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf(inScope)).toEqual([trigger.productionUrl, trigger.productionUrl]);
		expect(await urlsOf([outside])).toEqual([null]);
		await trigger.deactivate();
		expect(await urlsOf(inScope)).toEqual([null, null]);
	});

	test('One Tenant: its Tenant ID; an empty one is a clear error', async () => {
		const [a] = await tenants('mt-one', 1);
		const serving = (tenantId: string) =>
			ctx.trigger(
				{ authentication: 'managedTenant', tenantsServed: 'allowed' },
				managed({ tenantScope: 'one', tenantId }),
			);
		const trigger = serving(a.id);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf([a])).toEqual([trigger.productionUrl]);
		await trigger.deactivate();
		await expect(serving('').activate()).rejects.toThrow(
			/allows no tenant that the service has: it allows no tenant \(its Tenant ID is empty\)/,
		);
	});

	test('plain Allowed Tenants are served without listing; an expression list too', async () => {
		const [a, b] = await tenants('mt-plain', 2);
		const credential = managed({ tenantScope: 'listed', allowedTenants: `${a.id}\n${b.id}` });
		const allowed = ctx.trigger(
			{ authentication: 'managedTenant', tenantsServed: 'allowed' },
			credential,
		);
		expect(await allowed.activate()).toBe(true);
		expect(await urlsOf([a, b])).toEqual([allowed.productionUrl, allowed.productionUrl]);
		await allowed.deactivate();
		const fromExpression = servingList(`={{ ["${a.id}", "${b.id}"] }}`, credential);
		expect(await fromExpression.activate()).toBe(true);
		expect(await urlsOf([a, b])).toEqual([
			fromExpression.productionUrl,
			fromExpression.productionUrl,
		]);
		await fromExpression.deactivate();
	});
});

test('listening in the editor: each tenant sends the test run copies with its own secret and tenant_id', async () => {
	const served = await tenants('mt-listen', 2);
	const trigger = servingList(served.map((tenant) => tenant.id).join(','));
	expect(await trigger.listen()).toBe(true);
	for (const tenant of served) {
		const listed = await tenant.client.get('/api/contact-form/test-webhooks');
		expect(listed.data.data).toEqual([expect.objectContaining({ url: trigger.testUrl })]);
		// Nothing live: the settings stay empty.
		expect((await readSettings(tenant)).contact_form_webhook_url).toBeNull();
	}
	const [a, b] = served;
	const submissionId = await submit(ctx.site, b.id, { test: true });
	const deadline = Date.now() + 10_000;
	while (ctx.harness.callsFor(submissionId).length === 0 && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
	const [call] = ctx.harness.callsFor(submissionId);
	expect(call).toMatchObject({ isTest: true, status: 200 });
	expect(call.items?.[0].json.tenant_id).toBe(b.id);
	expect(a.id).not.toBe(b.id);
	await trigger.stopListening();
	for (const tenant of served) {
		const listed = await tenant.client.get('/api/contact-form/test-webhooks');
		expect(listed.data.data).toEqual([]);
	}
});
