/**
 * Registrations leave nothing behind: the trigger takes its URL and secret off
 * exactly the places it recorded, whatever the credential says by then; re-activation after a
 * credential change takes the old ones off first; where one cannot be taken off, activation and
 * deactivation fail naming the tenant and what to do, and the record stays. n8n's HookContext drives
 * checkExists/create/delete against the reference server.
 */
import type { ICredentialDataDecryptedObject, IDataObject, INodeCredentials } from 'n8n-workflow';

import {
	readSettings,
	useContactFormContext,
	type TenantWithCredential,
} from '../../harness/contact-form';
import { startDelayProxy } from '../../harness/delay-proxy';
import { managedCredentialData } from '../../harness/reference-server';
import type { TriggerWorkflow } from '../../harness/webhook-context';

const ctx = useContactFormContext({ deliverySetupGraceMs: 0 });

async function tenants(prefix: string, count: number): Promise<TenantWithCredential[]> {
	return await Promise.all(Array.from({ length: count }, () => ctx.tenant(prefix)));
}

async function urlsOf(list: TenantWithCredential[]) {
	return await Promise.all(
		list.map(async (tenant) => (await readSettings(tenant)).contact_form_webhook_url ?? null),
	);
}

function recordedTenants(trigger: TriggerWorkflow): string[] {
	const registrations = Object.values((trigger.staticData.registrations as IDataObject) ?? {});
	return registrations.map((registration) => String((registration as IDataObject).tenantId)).sort();
}

/** A credential of the harness and a way to change it, as a person editing it in n8n would. */
function editable(type: string, data: ICredentialDataDecryptedObject) {
	const credential: INodeCredentials = ctx.harness.credentials.add(type, data);
	const id = credential[type].id as string;
	return {
		credential,
		edit: (changes: ICredentialDataDecryptedObject) =>
			ctx.harness.credentials.update(id, { ...ctx.harness.credentials.read(id), ...changes }),
	};
}

describe('a Managed Tenant credential narrowed or repointed while the trigger is active', () => {
	test('narrowed to one of two tenants: deactivation takes the URL off both', async () => {
		const [one, two] = await tenants('left-narrow', 2);
		const { credential, edit } = editable(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, '', {
				tenantScope: 'listed',
				allowedTenants: 'left-narrow-*',
			}),
		);
		const trigger = ctx.trigger(
			{ authentication: 'managedTenant', tenantsServed: 'list', tenantIds: `${one.id}, ${two.id}` },
			credential,
		);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf([one, two])).toEqual([trigger.productionUrl, trigger.productionUrl]);
		edit({ allowedTenants: one.id });
		await trigger.deactivate();
		expect(await urlsOf([one, two])).toEqual([null, null]);
		expect((await readSettings(two)).contact_form_webhook_headers ?? null).toBeNull();
		expect(recordedTenants(trigger)).toEqual([]);
	});

	test('its Tenant ID switched from A to B: re-activation takes A off first, then registers B', async () => {
		const [a, b] = await tenants('left-switch', 2);
		const { credential, edit } = editable(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, a.id),
		);
		const trigger = ctx.trigger({ authentication: 'managedTenant' }, credential);
		expect(await trigger.activate()).toBe(true);
		edit({ tenantId: b.id });
		// Publishing again without a deactivation in between: the record of A makes checkExists false.
		expect(await trigger.checkExists()).toBe(false);
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf([a, b])).toEqual([null, trigger.productionUrl]);
		expect(recordedTenants(trigger)).toEqual([b.id]);
		expect(await trigger.checkExists()).toBe(true);
		await trigger.deactivate();
		expect(await urlsOf([a, b])).toEqual([null, null]);
	});

	test('a tenant deleted from the service: its registration is gone with it', async () => {
		const [a, b] = await tenants('left-gone', 2);
		const trigger = ctx.trigger(
			{ authentication: 'managedTenant', tenantsServed: 'list', tenantIds: `${a.id},${b.id}` },
			ctx.harness.credentials.add(
				'siteManagedTenantApi',
				managedCredentialData(ctx.site, '', { tenantScope: 'any' }),
			),
		);
		expect(await trigger.activate()).toBe(true);
		expect((await ctx.site.admin.delete('/api/tenant', { data: { id: a.id } })).status).toBe(200);
		await trigger.deactivate();
		expect(await urlsOf([b])).toEqual([null]);
		expect(recordedTenants(trigger)).toEqual([]);
	});
});

describe('a registration the credential no longer reaches', () => {
	test('a Tenant Token switched to another tenant: both hooks fail naming A, A keeps delivering to the record, B is not registered', async () => {
		const [a, b] = await tenants('left-token', 2);
		const { credential, edit } = editable('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: a.token,
			tenantId: a.id,
		});
		const trigger = ctx.trigger({ authentication: 'tenantToken' }, credential);
		expect(await trigger.activate()).toBe(true);
		edit({ token: b.token, tenantId: b.id });

		const off = trigger.deactivate();
		await expect(off).rejects.toThrow(
			new RegExp(`could not take its URL off "${a.id}": .*token is tenant "${b.id}"'s`),
		);
		await expect(off).rejects.toMatchObject({ description: /record of it stays/ });
		expect(recordedTenants(trigger)).toEqual([a.id]);

		const on = trigger.activate();
		await expect(on).rejects.toThrow(new RegExp(`could not take its URL off "${a.id}"`));
		await expect(on).rejects.toMatchObject({
			description: /^It no longer serves them, and nothing new was registered\. /,
		});
		expect(await urlsOf([a, b])).toEqual([trigger.productionUrl, null]);
		expect(recordedTenants(trigger)).toEqual([a.id]);

		// What the error says to do: give the credential back what reached A, unpublish, switch.
		edit({ token: a.token, tenantId: a.id });
		await trigger.deactivate();
		edit({ token: b.token, tenantId: b.id });
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf([a, b])).toEqual([null, trigger.productionUrl]);
		expect(recordedTenants(trigger)).toEqual([b.id]);
		await trigger.deactivate();
	});

	test('a Tenant Token switched away and A recorded: a Managed Tenant credential of the service takes A off', async () => {
		const [a, b] = await tenants('left-rescue', 2);
		const trigger = ctx.trigger({ authentication: 'tenantToken' }, a.credential);
		expect(await trigger.activate()).toBe(true);
		const node = trigger.workflow.getNode(trigger.node.name)!;
		node.credentials = ctx.harness.credentials.add(
			'siteManagedTenantApi',
			managedCredentialData(ctx.site, b.id),
		);
		node.parameters.authentication = 'managedTenant';
		// B's credential allows only B, and still takes its own registration off A.
		expect(await trigger.activate()).toBe(true);
		expect(await urlsOf([a, b])).toEqual([null, trigger.productionUrl]);
		expect(recordedTenants(trigger)).toEqual([b.id]);
		await trigger.deactivate();
	});

	test('its base URL changed: the token never goes to the old one; the error names the tenant and both URLs', async () => {
		const [a] = await tenants('left-host', 1);
		const proxy = await startDelayProxy(() => ctx.site.url);
		try {
			const { credential, edit } = editable('siteManagedTenantApi', {
				...managedCredentialData(ctx.site, a.id),
				baseUrl: proxy.url,
			});
			const trigger = ctx.trigger({ authentication: 'managedTenant' }, credential);
			expect(await trigger.activate()).toBe(true);
			const sentBefore = proxy.log.length;
			edit({ baseUrl: ctx.site.url });
			await expect(trigger.deactivate()).rejects.toThrow(
				new RegExp(
					`could not take its URL off "${a.id}": registered through ${proxy.url}, but the credential now points at ${ctx.site.url}`,
				),
			);
			await expect(trigger.activate()).rejects.toThrow(new RegExp(`"${a.id}": registered through`));
			expect(proxy.log.length).toBe(sentBefore);
			expect(await urlsOf([a])).toEqual([trigger.productionUrl]);
			expect(recordedTenants(trigger)).toEqual([a.id]);
			edit({ baseUrl: proxy.url });
			await trigger.deactivate();
			expect(await urlsOf([a])).toEqual([null]);
		} finally {
			await proxy.close();
		}
	});
});
