/** Tenant node: variables picked from a list or given by key. */
import { byKey, byList } from '../../../harness/locators';
import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Variable locator', () => {
	test('Get and Delete by list or key; Set outputs the variable', async () => {
		const tenant = await ctx.tenant('variable-locator');
		const set = await tenant.run({
			resource: 'variable',
			operation: 'set',
			key: 'colour',
			value: 'blue',
		});
		expect(set.items[0].json).toEqual({ key: 'colour', value: 'blue' });

		const got = await tenant.run({ resource: 'variable', operation: 'get', key: byList('colour') });
		expect(got.items[0].json).toEqual({ key: 'colour', value: 'blue' });
		const missing = await tenant.run({
			resource: 'variable',
			operation: 'get',
			key: byKey('size'),
		});
		expect(missing.error?.message).toBe('No variable with key "size"');

		const deleted = await tenant.run({
			resource: 'variable',
			operation: 'delete',
			key: byKey('colour'),
		});
		expect(deleted.items[0].json).toEqual({ key: 'colour', deleted: true });
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([]);
	});

	test('a plain string (as an AI agent gives it) is read as the key; an empty one is refused', async () => {
		const tenant = await ctx.tenant('variable-plain');
		await tenant.client.put('/api/variables', { key: 'size', value: 'L' });
		const got = await tenant.run({ resource: 'variable', operation: 'get', key: 'size' });
		expect(got.error).toBeUndefined();
		expect(got.items[0].json).toEqual({ key: 'size', value: 'L' });

		const empty = await tenant.run({
			resource: 'variable',
			operation: 'delete',
			key: byKey('={{ $json.missing ?? "" }}'),
		});
		expect(empty.error?.message).toBe('The parameter "Variable" is required');
		expect((await tenant.client.get('/api/variables')).data.data).toEqual([
			{ key: 'size', value: 'L' },
		]);
	});
});
