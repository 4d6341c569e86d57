/**
 * Site Management Admin node, its safe defaults against the reference server, in n8n's engine: one
 * Tenant ID parameter, Create or Update in one shape, tokens with a lifetime by default, errors that
 * name fields as the editor shows them.
 */
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);
const DAY_MS = 24 * 3600 * 1000;

describe('Tenant > Create or Update: one shape', () => {
	const upsert = (parameters: Record<string, string>) =>
		ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', ...parameters });

	test('created, updated and unchanged all answer {id, fqdn, created, result, message}', async () => {
		const created = await upsert({ id: 'one-shape' });
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toEqual({
			id: 'one-shape',
			fqdn: null,
			created: true,
			result: 'created',
			message: 'Tenant created successfully.',
		});

		const updated = await upsert({ id: 'one-shape', fqdn: 'www.one.example' });
		expect(updated.items[0].json).toEqual({
			id: 'one-shape',
			fqdn: 'www.one.example',
			created: false,
			result: 'updated',
			message: 'Tenant updated successfully.',
		});
		expect(storedTenant('one-shape')).toMatchObject({ fqdn: 'www.one.example' });

		const unchanged = await upsert({ id: 'one-shape' });
		expect(unchanged.items[0].json).toEqual({
			id: 'one-shape',
			fqdn: null,
			created: false,
			result: 'unchanged',
			message: 'Tenant "one-shape" exists; nothing to change (no domain given, it keeps its own).',
		});
		expect(storedTenant('one-shape')).toMatchObject({ fqdn: 'www.one.example' });

		for (const run of [created, updated, unchanged])
			expect(Object.keys(run.items[0].json).sort()).toEqual([
				'created',
				'fqdn',
				'id',
				'message',
				'result',
			]);
	});
});

describe('errors name the field as the editor shows it', () => {
	test.each(['create', 'createOrUpdate', 'delete'])(
		'Tenant > %s: a malformed ID is "Tenant ID", not id',
		async (operation) => {
			const result = await ctx.adminNode({ resource: 'tenant', operation, id: 'Not Valid!' });
			expect(result.error?.httpCode).toBe('400');
			expect(result.error?.description).toMatch(/^Tenant ID: /);
			expect(result.error?.description).not.toMatch(/^id:/m);
			expect(storedTenant('Not Valid!')).toBeUndefined();
		},
	);

	test('Token > Issue and Tenant > Update name their fields too', async () => {
		const issue = await ctx.adminNode({ resource: 'token', operation: 'issue', id: 'Not Valid!' });
		expect(issue.error?.description).toMatch(/^Tenant ID: /);

		await ctx.site.createTenant('rename-me');
		const rename = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'rename-me',
			newId: 'Not Valid!',
		});
		expect(rename.error?.description).toMatch(/^New Tenant ID: /);
		expect(storedTenant('rename-me')).toBeDefined();
	});
});

describe('Tenant > Update: Tenant ID is the tenant to change', () => {
	test('New Tenant ID renames it; left empty, only the domain changes', async () => {
		await ctx.site.createTenant('before-rename');
		const renamed = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'before-rename',
			newId: 'after-rename',
		});
		expect(renamed.error).toBeUndefined();
		expect(renamed.items[0].json).toEqual({
			id: 'after-rename',
			old_id: 'before-rename',
			message: 'Tenant updated successfully.',
		});
		expect(storedTenant('before-rename')).toBeUndefined();

		const domain = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'after-rename',
			fqdn: 'www.after.example',
		});
		expect(domain.items[0].json).toMatchObject({ id: 'after-rename', old_id: 'after-rename' });
		expect(storedTenant('after-rename')).toMatchObject({ fqdn: 'www.after.example' });
	});
});

describe('Token > Issue: a lifetime by default', () => {
	test('as it comes, a token lives 30 days', async () => {
		await ctx.site.createTenant('lifetime');
		const before = Date.now();
		const issued = await ctx.adminNode({ resource: 'token', operation: 'issue', id: 'lifetime' });
		expect(issued.error).toBeUndefined();
		const expiresAt = Date.parse(issued.items[0].json.expires_at as string);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 60_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 60_000);
		expect(issued.items[0].json.tenant_id).toBe('lifetime');
	});

	test('0 still means a token that never expires', async () => {
		await ctx.site.createTenant('forever');
		const issued = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'forever',
			expiresIn: 0,
		});
		expect(issued.items[0].json.expires_at).toBeNull();
	});
});
