/**
 * Site Management Admin node, version 4 (safe defaults) against the reference server, in n8n's engine:
 * one Tenant ID parameter, Create or Update in one shape, tokens with a lifetime by default, errors
 * that name fields as the editor shows them. Versions 1 to 3 are covered as saved by tenant.test.ts
 * and token.test.ts; the contrasts that matter are repeated here.
 */
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
const v4 = { typeVersion: 4 };
const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);
const DAY_MS = 24 * 3600 * 1000;

describe('Tenant > Create or Update, version 4: one shape', () => {
	const upsert = (parameters: Record<string, string>) =>
		ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', ...parameters }, v4);

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

	test('version 3 keeps its two shapes (no fqdn key when kept, no result)', async () => {
		await upsert({ id: 'two-shapes' });
		const kept = await ctx.adminNode(
			{ resource: 'tenant', operation: 'createOrUpdate', id: 'two-shapes' },
			{ typeVersion: 3 },
		);
		expect(kept.items[0].json).toEqual({
			id: 'two-shapes',
			created: false,
			message: 'Tenant updated successfully.',
		});
	});
});

describe('errors name the field as the editor shows it', () => {
	test.each([
		['create', 3],
		['createOrUpdate', 4],
		['delete', 4],
	])(
		'Tenant > %s (version %i): a malformed ID is "Tenant ID", not id',
		async (operation, version) => {
			const result = await ctx.adminNode(
				{ resource: 'tenant', operation, id: 'Not Valid!' },
				{ typeVersion: version },
			);
			expect(result.error?.httpCode).toBe('400');
			expect(result.error?.description).toMatch(/^Tenant ID: /);
			expect(result.error?.description).not.toMatch(/^id:/m);
			expect(storedTenant('Not Valid!')).toBeUndefined();
		},
	);

	test('Token > Issue and Tenant > Update name their fields too', async () => {
		const issue = await ctx.adminNode(
			{ resource: 'token', operation: 'issue', id: 'Not Valid!' },
			v4,
		);
		expect(issue.error?.description).toMatch(/^Tenant ID: /);

		await ctx.site.createTenant('rename-me');
		const rename = await ctx.adminNode(
			{ resource: 'tenant', operation: 'update', id: 'rename-me', newId: 'Not Valid!' },
			v4,
		);
		expect(rename.error?.description).toMatch(/^New Tenant ID: /);
		expect(storedTenant('rename-me')).toBeDefined();
	});
});

describe('Tenant > Update, version 4: Tenant ID is the tenant to change', () => {
	test('New Tenant ID renames it; left empty, only the domain changes', async () => {
		await ctx.site.createTenant('before-rename');
		const renamed = await ctx.adminNode(
			{ resource: 'tenant', operation: 'update', id: 'before-rename', newId: 'after-rename' },
			v4,
		);
		expect(renamed.error).toBeUndefined();
		expect(renamed.items[0].json).toEqual({
			id: 'after-rename',
			old_id: 'before-rename',
			message: 'Tenant updated successfully.',
		});
		expect(storedTenant('before-rename')).toBeUndefined();

		const domain = await ctx.adminNode(
			{ resource: 'tenant', operation: 'update', id: 'after-rename', fqdn: 'www.after.example' },
			v4,
		);
		expect(domain.items[0].json).toMatchObject({ id: 'after-rename', old_id: 'after-rename' });
		expect(storedTenant('after-rename')).toMatchObject({ fqdn: 'www.after.example' });
	});
});

describe('Token > Issue, version 4', () => {
	test('as it comes, a token lives 30 days (version 3 as it comes: never expires)', async () => {
		await ctx.site.createTenant('lifetime');
		const before = Date.now();
		const issued = await ctx.adminNode(
			{ resource: 'token', operation: 'issue', id: 'lifetime' },
			v4,
		);
		expect(issued.error).toBeUndefined();
		const expiresAt = Date.parse(issued.items[0].json.expires_at as string);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY_MS - 60_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS + 60_000);
		expect(issued.items[0].json.tenant_id).toBe('lifetime');

		const legacy = await ctx.adminNode(
			{ resource: 'token', operation: 'issue', tenantId: 'lifetime' },
			{ typeVersion: 3 },
		);
		expect(legacy.error).toBeUndefined();
		expect(legacy.items[0].json.expires_at).toBeNull();
	});

	test('0 still means a token that never expires', async () => {
		await ctx.site.createTenant('forever');
		const issued = await ctx.adminNode(
			{ resource: 'token', operation: 'issue', id: 'forever', expiresIn: 0 },
			v4,
		);
		expect(issued.items[0].json.expires_at).toBeNull();
	});
});
