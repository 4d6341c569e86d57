/** Tenant node, Variable: set, get, get many and delete. */
import { byKey } from '../../../harness/locators';
import { startTestSite } from '../../../harness/reference-server';
import { jsonOf, useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Variable', () => {
	test('Set creates and replaces, Get Many lists one item per variable, Delete removes', async () => {
		const tenant = await ctx.tenant('variables');
		const set = (key: string, value: string) =>
			tenant.run({ resource: 'variable', operation: 'set', key, value });

		expect((await set('colour', 'blue')).items[0].json).toEqual({ key: 'colour', value: 'blue' });
		expect((await set('size', 'L')).error).toBeUndefined();
		expect((await set('colour', 'green')).items[0].json).toEqual({
			key: 'colour',
			value: 'green',
		});

		const all = await tenant.run({ resource: 'variable', operation: 'getAll' });
		expect(jsonOf(all.items).sort((a, b) => String(a.key).localeCompare(String(b.key)))).toEqual([
			{ key: 'colour', value: 'green' },
			{ key: 'size', value: 'L' },
		]);

		const deleted = await tenant.run({
			resource: 'variable',
			operation: 'delete',
			key: byKey('colour'),
		});
		expect(deleted.items[0].json).toEqual({ key: 'colour', deleted: true });
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([
			{ key: 'size', value: 'L' },
		]);

		const missing = await tenant.run({
			resource: 'variable',
			operation: 'delete',
			key: byKey('colour'),
		});
		expect(missing.error?.httpCode).toBe('404');
	});

	test('an empty list gives no items', async () => {
		const tenant = await ctx.tenant('variables-empty');
		const all = await tenant.run({ resource: 'variable', operation: 'getAll' });
		expect(all.error).toBeUndefined();
		expect(all.items).toEqual([]);
	});

	test('on a server without variables every call fails with 403 feature_disabled', async () => {
		const site = await startTestSite({ enableVariables: false });
		try {
			const tenant = await site.createTenant('no-vars');
			const credentials = ctx.runner.credentials.add('siteTenantApi', {
				baseUrl: site.url,
				token: tenant.token,
			});
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				parameters: { resource: 'variable', operation: 'set', key: 'k', value: 'v' },
			});
			expect(result.error?.httpCode).toBe('403');
			expect(result.error?.message).toMatch(/Variables are not enabled/);
		} finally {
			await site.close();
		}
	});
});
