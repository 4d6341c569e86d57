/** Site Management Admin node, Tenant: create, update and delete on the central surface, run in n8n's engine. */
import { client } from '../../../../reference-server/test/helpers';
import { listPages, useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

/** The tenant row as the server stores it (to see the fqdn, which no endpoint returns). */
const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);

describe('Tenant', () => {
	test('Create makes the tenant with its domain; a second create of the same id fails with 409', async () => {
		const created = await ctx.adminNode({
			resource: 'tenant',
			operation: 'create',
			id: 'create-me',
			fqdn: 'www.create.example',
		});
		expect(created.error).toBeUndefined();
		expect(created.items).toHaveLength(1);
		expect(created.items[0].json).toEqual({
			message: 'Tenant created successfully.',
			id: 'create-me',
			fqdn: 'www.create.example',
		});
		expect(created.items[0].pairedItem).toEqual({ item: 0 });
		expect(storedTenant('create-me')).toMatchObject({
			id: 'create-me',
			fqdn: 'www.create.example',
		});

		const again = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'create-me' });
		expect(again.items).toHaveLength(0);
		expect(again.error?.message).toBe('A tenant with id "create-me" already exists.');
		expect(again.error?.httpCode).toBe('409');
	});

	test('Create without a domain stores none; one item per input item', async () => {
		const result = await ctx.adminNode(
			{ resource: 'tenant', operation: 'create', id: '={{ $json.id }}' },
			{
				input: [{ json: { id: 'bulk-a' } }, { json: { id: 'bulk-b' } }, { json: { id: 'bulk-c' } }],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => [item.json.id, item.pairedItem])).toEqual([
			['bulk-a', { item: 0 }],
			['bulk-b', { item: 1 }],
			['bulk-c', { item: 2 }],
		]);
		for (const id of ['bulk-a', 'bulk-b', 'bulk-c']) expect(storedTenant(id)?.fqdn).toBeNull();
	});

	test('Update renames the tenant: its pages follow, its token stops, the old id is gone', async () => {
		const tenant = await ctx.site.createTenant('old-name');
		expect(
			(await tenant.client.post('/api/page', { name: 'Home', url: '/home', locale: 'en' })).status,
		).toBe(201);

		const result = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'old-name',
			newId: 'new-name',
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

		// The pages follow the rename; the token issued for the old name stops working (it must never
		// reach the renamed tenant, nor a new tenant of the old name), and a new one is issued.
		expect((await tenant.client.get('/api/pages')).status).toBe(401);
		const issued = await ctx.adminNode({ resource: 'token', operation: 'issue', id: 'new-name' });
		expect(issued.error).toBeUndefined();
		const renamed = client(ctx.site.url, issued.items[0].json.token as string);
		expect((await listPages(renamed)).map((page) => page.url)).toEqual(['/home']);

		// The old id is free again: creating it gives a new, empty tenant.
		const reused = await ctx.site.createTenant('old-name');
		expect(await listPages(reused.client)).toEqual([]);
	});

	test('Update without a New Tenant ID changes only the domain; an empty domain keeps it', async () => {
		await ctx.site.createTenant('domain-only');
		const changed = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'domain-only',
			fqdn: 'a.example.com',
		});
		expect(changed.error).toBeUndefined();
		expect(changed.items[0].json).toEqual({
			message: 'Tenant updated successfully.',
			id: 'domain-only',
			old_id: 'domain-only',
			fqdn: 'a.example.com',
		});
		expect(storedTenant('domain-only')?.fqdn).toBe('a.example.com');

		const kept = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'domain-only',
			newId: '',
			fqdn: '',
		});
		expect(kept.error).toBeUndefined();
		expect(kept.items[0].json).not.toHaveProperty('fqdn');
		expect(storedTenant('domain-only')?.fqdn).toBe('a.example.com');
	});

	test('Update of an unknown tenant fails with 404, onto a taken id with 409, and changes nothing', async () => {
		await ctx.site.createTenant('taken-a');
		await ctx.site.createTenant('taken-b');
		const missing = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'no-such-tenant',
			newId: 'whatever',
		});
		expect(missing.error?.httpCode).toBe('404');
		expect(missing.error?.message).toBe('Tenant "no-such-tenant" not found.');
		expect(storedTenant('whatever')).toBeUndefined();

		const clash = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'taken-a',
			newId: 'taken-b',
		});
		expect(clash.error?.httpCode).toBe('409');
		expect(storedTenant('taken-a')).toBeDefined();
	});

	test('Delete removes the tenant with its data; its token stops working', async () => {
		const tenant = await ctx.site.createTenant('doomed');
		expect(
			(await tenant.client.post('/api/page', { name: 'x', url: '/x', locale: 'en' })).status,
		).toBe(201);

		const result = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'doomed' });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toEqual({
			id: 'doomed',
			deleted: true,
			message: 'Tenant deleted successfully.',
		});
		expect(storedTenant('doomed')).toBeUndefined();
		expect((await tenant.client.get('/api/pages')).status).toBe(401);

		const again = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'doomed' });
		expect(again.error?.httpCode).toBe('404');
	});

	test('an invalid tenant id is rejected by the server with the field named', async () => {
		const result = await ctx.adminNode({
			resource: 'tenant',
			operation: 'create',
			id: 'Not Valid!',
		});
		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.description).toMatch(/^Tenant ID: /);
		expect(storedTenant('Not Valid!')).toBeUndefined();
	});
});

describe('one output shape for the tenant', () => {
	test('Create and Delete output the tenant {id, fqdn, message}: fqdn null without a domain, Delete with deleted: true', async () => {
		const created = await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'shape' });
		expect(created.items[0].json).toEqual({
			id: 'shape',
			fqdn: null,
			message: 'Tenant created successfully.',
		});
		const deleted = await ctx.adminNode({ resource: 'tenant', operation: 'delete', id: 'shape' });
		expect(deleted.items[0].json).toEqual({
			id: 'shape',
			deleted: true,
			message: 'Tenant deleted successfully.',
		});
	});
});

describe('Tenant > Create or Update', () => {
	test('creates a missing tenant; for an existing one sets its domain; without a domain keeps it', async () => {
		const created = await ctx.adminNode({
			resource: 'tenant',
			operation: 'createOrUpdate',
			id: 'upsert-me',
			fqdn: 'www.first.example',
		});
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toEqual({
			id: 'upsert-me',
			fqdn: 'www.first.example',
			created: true,
			result: 'created',
			message: 'Tenant created successfully.',
		});
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.first.example' });

		const updated = await ctx.adminNode({
			resource: 'tenant',
			operation: 'createOrUpdate',
			id: 'upsert-me',
			fqdn: 'www.second.example',
		});
		expect(updated.error).toBeUndefined();
		expect(updated.items[0].json).toEqual({
			id: 'upsert-me',
			fqdn: 'www.second.example',
			created: false,
			result: 'updated',
			message: 'Tenant updated successfully.',
		});
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.second.example' });

		const kept = await ctx.adminNode({
			resource: 'tenant',
			operation: 'createOrUpdate',
			id: 'upsert-me',
		});
		// Nothing to send: the tenant is left as it is (the service does not say its domain).
		expect(kept.items[0].json).toEqual({
			id: 'upsert-me',
			fqdn: null,
			created: false,
			result: 'unchanged',
			message: 'Tenant "upsert-me" exists; nothing to change (no domain given, it keeps its own).',
		});
		expect(storedTenant('upsert-me')).toMatchObject({ fqdn: 'www.second.example' });
	});

	test('an error other than "already exists" fails the item as Create does, naming the field', async () => {
		const invalid = await ctx.adminNode({
			resource: 'tenant',
			operation: 'createOrUpdate',
			id: 'Not Valid!',
		});
		expect(invalid.items).toHaveLength(0);
		expect(invalid.error?.httpCode).toBe('400');
		expect(invalid.error?.message).toMatch(/\bid\b/);
		expect(storedTenant('Not Valid!')).toBeUndefined();
	});
});
