/** Tenant node version 3: variables picked from a list or given by key. */
import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();
const V3 = { typeVersion: 3 };
const byList = (value: string) => ({ __rl: true, mode: 'list', value });
const byKey = (value: string) => ({ __rl: true, mode: 'key', value });

describe('Variable locator (version 3)', () => {
	test('Get and Delete by list or key; Set outputs the variable; versions 1 and 2 as before', async () => {
		const tenant = await ctx.tenant('variable-locator');
		const set = await tenant.run(
			{ resource: 'variable', operation: 'set', key: 'colour', value: 'blue' },
			V3,
		);
		expect(set.items[0].json).toEqual({ key: 'colour', value: 'blue' });

		const got = await tenant.run(
			{ resource: 'variable', operation: 'get', key: byList('colour') },
			V3,
		);
		expect(got.items[0].json).toEqual({ key: 'colour', value: 'blue' });
		const missing = await tenant.run(
			{ resource: 'variable', operation: 'get', key: byKey('size') },
			V3,
		);
		expect(missing.error?.message).toBe('No variable with key "size"');

		const deleted = await tenant.run(
			{ resource: 'variable', operation: 'delete', key: byKey('colour') },
			V3,
		);
		expect(deleted.items[0].json).toEqual({ key: 'colour', deleted: true });
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([]);

		const oldSet = await tenant.run(
			{ resource: 'variable', operation: 'set', key: 'size', value: 'L' },
			{ typeVersion: 2 },
		);
		expect(oldSet.items[0].json).toEqual({
			message: 'Variable saved.',
			variable: { key: 'size', value: 'L' },
		});
		const oldDelete = await tenant.run(
			{ resource: 'variable', operation: 'delete', key: 'size' },
			{ typeVersion: 2 },
		);
		expect(oldDelete.items[0].json).toEqual({
			message: 'Variable deleted.',
			key: 'size',
			deleted: true,
		});
	});
});
