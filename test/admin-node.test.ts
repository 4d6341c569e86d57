/** Site Management Admin node: tenants and tokens on the central surface, run in n8n's engine. */
import axios from 'axios';

import { expectNoSecrets, listPages, useNodeTestContext } from './helpers/nodes';

const ctx = useNodeTestContext();

/** The tenant row as the server stores it (to see the fqdn, which no endpoint returns). */
const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);
const tenantClient = (token: string) =>
	axios.create({ baseURL: ctx.site.url, validateStatus: () => true, headers: { Authorization: `Bearer ${token}` } });

describe('Tenant', () => {
	test('Create makes the tenant with its domain; a second create of the same id fails with 409', async () => {
		const created = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'create-me', fqdn: 'www.create.example' });
		expect(created.error).toBeUndefined();
		expect(created.items).toHaveLength(1);
		expect(created.items[0].json).toEqual({ message: 'Tenant created successfully.', id: 'create-me', fqdn: 'www.create.example' });
		expect(created.items[0].pairedItem).toEqual({ item: 0 });
		expect(storedTenant('create-me')).toMatchObject({ id: 'create-me', fqdn: 'www.create.example' });

		const again = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'create-me' });
		expect(again.items).toHaveLength(0);
		expect(again.error?.message).toBe('A tenant with id "create-me" already exists.');
		expect(again.error?.httpCode).toBe('409');
	});

	test('Create without a domain stores none; one item per input item', async () => {
		const result = await ctx.adminNode(
			{ resource: 'tenant', operation: 'create', id: '={{ $json.id }}' },
			{ input: [{ json: { id: 'bulk-a' } }, { json: { id: 'bulk-b' } }, { json: { id: 'bulk-c' } }] },
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['bulk-a', { item: 0 }],
			['bulk-b', { item: 1 }],
			['bulk-c', { item: 2 }],
		]);
		for (const id of ['bulk-a', 'bulk-b', 'bulk-c']) expect(storedTenant(id)?.fqdn).toBeNull();
	});

	test('Update renames the tenant: its pages and its token follow, the old id is gone', async () => {
		const tenant = await ctx.site.createTenant('old-name');
		expect((await tenant.client.post('/api/page', { name: 'Home', url: '/home', locale: 'en' })).status).toBe(201);

		const result = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			oldId: 'old-name',
			id: 'new-name',
			fqdn: 'new.example.org',
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({
			message: 'Tenant updated successfully.',
			id: 'new-name',
			old_id: 'old-name',
			fqdn: 'new.example.org',
		});
		expect(storedTenant('old-name')).toBeUndefined();
		expect(storedTenant('new-name')).toMatchObject({ fqdn: 'new.example.org' });

		// The token issued before the rename still works and now belongs to the renamed tenant.
		const pages = await listPages(tenant.client);
		expect(pages.map((page) => page.url)).toEqual(['/home']);

		// The old id is free again: creating it gives a new, empty tenant.
		const reused = await ctx.site.createTenant('old-name');
		expect(await listPages(reused.client)).toEqual([]);
	});

	test('Update with the same id changes only the domain; an empty domain keeps it', async () => {
		await ctx.site.createTenant('domain-only');
		const changed = await ctx.adminNode({ resource: 'tenant', operation: 'update', oldId: 'domain-only', id: 'domain-only', fqdn: 'a.example.com' });
		expect(changed.error).toBeUndefined();
		expect(storedTenant('domain-only')?.fqdn).toBe('a.example.com');

		const kept = await ctx.adminNode({ resource: 'tenant', operation: 'update', oldId: 'domain-only', id: 'domain-only', fqdn: '' });
		expect(kept.error).toBeUndefined();
		expect(kept.items[0].json).not.toHaveProperty('fqdn');
		expect(storedTenant('domain-only')?.fqdn).toBe('a.example.com');
	});

	test('Update of an unknown tenant fails with 404, onto a taken id with 409, and changes nothing', async () => {
		await ctx.site.createTenant('taken-a');
		await ctx.site.createTenant('taken-b');
		const missing = await ctx.adminNode({ resource: 'tenant', operation: 'update', oldId: 'no-such-tenant', id: 'whatever' });
		expect(missing.error?.httpCode).toBe('404');
		expect(missing.error?.message).toBe('Tenant "no-such-tenant" not found.');
		expect(storedTenant('whatever')).toBeUndefined();

		const clash = await ctx.adminNode({ resource: 'tenant', operation: 'update', oldId: 'taken-a', id: 'taken-b' });
		expect(clash.error?.httpCode).toBe('409');
		expect(storedTenant('taken-a')).toBeDefined();
	});

	test('Delete removes the tenant with its data; its token stops working', async () => {
		const tenant = await ctx.site.createTenant('doomed');
		expect((await tenant.client.post('/api/page', { name: 'x', url: '/x', locale: 'en' })).status).toBe(201);

		const result = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'doomed' });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({ message: 'Tenant deleted successfully.', id: 'doomed' });
		expect(storedTenant('doomed')).toBeUndefined();
		expect((await tenant.client.get('/api/pages')).status).toBe(401);

		const again = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'doomed' });
		expect(again.error?.httpCode).toBe('404');
	});

	test('an invalid tenant id is rejected by the server with the field named', async () => {
		const result = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'Not Valid!' });
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.description).toMatch(/^id: /);
		expect(storedTenant('Not Valid!')).toBeUndefined();
	});
});

describe('Token', () => {
	test('Issue returns a working token with its expiry; only Issue outputs a token', async () => {
		await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'token-owner' });
		const before = Date.now();
		const result = await ctx.adminNode({ resource: 'token', operation: 'issue', tenantId: 'token-owner', expiresIn: 600, revokePrevious: false });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const issued = result.items[0].json as { token: string; token_type: string; tenant_id: string; expires_at: string };
		expect(issued).toEqual({
			token: expect.stringMatching(/^\S{40,}$/),
			token_type: 'Bearer',
			tenant_id: 'token-owner',
			expires_at: expect.any(String),
		});
		const expiresAt = Date.parse(issued.expires_at);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 590_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 610_000);

		const response = await tenantClient(issued.token).get('/api/pages');
		expect(response.status).toBe(200);

		// The other operations' outputs never carry it.
		const update = await ctx.adminNode({ resource: 'tenant', operation: 'update', oldId: 'token-owner', id: 'token-owner', fqdn: 'owner.example.com' });
		expectNoSecrets(update.run, [issued.token, ctx.site.adminToken]);
	});

	test('Issue with lifetime 0 gives a token that does not expire', async () => {
		await ctx.site.createTenant('forever');
		const result = await ctx.adminNode({ resource: 'token', operation: 'issue', tenantId: 'forever', expiresIn: 0 });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.expires_at).toBeNull();
		expect((await tenantClient(result.items[0].json.token as string).get('/api/pages')).status).toBe(200);
	});

	test('Revoke Previous rotates: earlier tokens get 401, the new one works', async () => {
		const tenant = await ctx.site.createTenant('rotating');
		const second = await ctx.adminNode({ resource: 'token', operation: 'issue', tenantId: 'rotating', revokePrevious: false });
		const secondToken = second.items[0].json.token as string;
		// Without revoke_previous both tokens work.
		expect((await tenant.client.get('/api/pages')).status).toBe(200);
		expect((await tenantClient(secondToken).get('/api/pages')).status).toBe(200);

		const rotated = await ctx.adminNode({ resource: 'token', operation: 'issue', tenantId: 'rotating', revokePrevious: true });
		expect(rotated.error).toBeUndefined();
		const newToken = rotated.items[0].json.token as string;
		expect(newToken).not.toBe(secondToken);
		expect((await tenant.client.get('/api/pages')).status).toBe(401);
		expect((await tenantClient(secondToken).get('/api/pages')).status).toBe(401);
		expect((await tenantClient(newToken).get('/api/pages')).status).toBe(200);
	});

	test('Issue for an unknown tenant fails with 404', async () => {
		const result = await ctx.adminNode({ resource: 'token', operation: 'issue', tenantId: 'ghost' }, { continueOnFail: true });
		expect(result.items).toEqual([
			{ json: { error: 'Tenant "ghost" not found.', httpCode: '404' }, pairedItem: { item: 0 } },
		]);
	});

	test('the Token Issue operation tells the user to keep the token in a credential', () => {
		const description = ctx.runner.nodeTypes.getByName('siteAdmin').description;
		const notice = description.properties.find(
			(property) => property.type === 'notice' && property.displayOptions?.show?.operation?.includes('issue'),
		);
		expect(notice?.displayName).toMatch(/credential/i);
		expect(notice?.displayName).toMatch(/not store it in a workflow/i);
	});
});

test('a tenant token on the central surface is refused with 403', async () => {
	const tenant = await ctx.site.createTenant('sneaky');
	const credential = ctx.runner.credentials.add('siteAdminApi', { baseUrl: ctx.site.url, token: tenant.token });
	const result = await ctx.runner.runNode({
		type: 'siteAdmin',
		parameters: { resource: 'tenant', operation: 'create', id: 'sneaky-2' },
		credentials: credential,
	});
	expect(result.error?.httpCode).toBe('403');
	expect(storedTenant('sneaky-2')).toBeUndefined();
	expectNoSecrets(result.run, [tenant.token]);
});

describe('version 3: one output shape for the tenant', () => {
	test('Create and Delete output the tenant {id, fqdn, message}, Delete with deleted: true; version 2 as before', async () => {
		const v3 = { typeVersion: 3 };
		const created = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'shape-v3' }, v3);
		expect(created.items[0].json).toEqual({ id: 'shape-v3', fqdn: null, message: 'Tenant created successfully.' });
		const deleted = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'shape-v3' }, v3);
		expect(deleted.items[0].json).toEqual({ id: 'shape-v3', deleted: true, message: 'Tenant deleted successfully.' });

		const v2 = { typeVersion: 2 };
		const oldCreate = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'shape-v2' }, v2);
		expect(oldCreate.items[0].json).toEqual({ message: 'Tenant created successfully.', id: 'shape-v2' });
		const oldDelete = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'shape-v2' }, v2);
		expect(oldDelete.items[0].json).toEqual({ message: 'Tenant deleted successfully.', id: 'shape-v2' });
	});
});

describe('Tenant > Create or Update', () => {
	test('creates a missing tenant; for an existing one sets its domain; without a domain keeps it', async () => {
		const created = await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'upsert-me', fqdn: 'www.first.example' });
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toEqual({ id: 'upsert-me', fqdn: 'www.first.example', created: true, message: 'Tenant created successfully.' });
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.first.example' });

		const updated = await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'upsert-me', fqdn: 'www.second.example' });
		expect(updated.error).toBeUndefined();
		expect(updated.items[0].json).toEqual({ id: 'upsert-me', fqdn: 'www.second.example', created: false, message: 'Tenant updated successfully.' });
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.second.example' });

		const kept = await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'upsert-me' });
		expect(kept.items[0].json).toEqual({ id: 'upsert-me', created: false, message: 'Tenant updated successfully.' });
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.second.example' });
	});

	test('an error other than "already exists" fails the item as Create does, naming the field', async () => {
		const invalid = await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'Not Valid!' });
		expect(invalid.items).toHaveLength(0);
		expect(invalid.error?.httpCode).toBe('400');
		expect(invalid.error?.message).toMatch(/\bid\b/);
		expect(storedTenant('Not Valid!')).toBeUndefined();
	});
});
