/**
 * The Admin node for fleets, in n8n's engine against the reference server: Tenant > Get Many (the
 * server's GET /api/tenants extension, and a clear error without it), an Update that refuses to
 * create a missing tenant unless Create If Missing is on, and a Create or Update that says
 * `unchanged` whenever nothing changed.
 */
import { useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();
const plain = useNodeTestContext({ extensions: false });

const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);

describe('Tenant > Get Many', () => {
	beforeAll(async () => {
		for (let i = 0; i < 120; i++)
			await ctx.site.createTenant(`fleet-${String(i).padStart(3, '0')}`);
		await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'fleet-007',
			fqdn: 'www.seven.example',
		});
	});

	test('Return All lists every tenant (more than a page of 100) ordered by ID, with its domain', async () => {
		const result = await ctx.adminNode({
			resource: 'tenant',
			operation: 'getAll',
			returnAll: true,
			search: 'fleet-',
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.id)).toEqual(
			Array.from({ length: 120 }, (_, i) => `fleet-${String(i).padStart(3, '0')}`),
		);
		expect(result.items[7].json).toMatchObject({ id: 'fleet-007', fqdn: 'www.seven.example' });
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(
			true,
		);
	});

	test('Limit and Search narrow the list', async () => {
		const limited = await ctx.adminNode({
			resource: 'tenant',
			operation: 'getAll',
			limit: 3,
			search: 'fleet-',
		});
		expect(limited.items.map((item) => item.json.id)).toEqual([
			'fleet-000',
			'fleet-001',
			'fleet-002',
		]);
		const searched = await ctx.adminNode({
			resource: 'tenant',
			operation: 'getAll',
			search: '-00',
		});
		expect(searched.items.map((item) => item.json.id)).toEqual(
			Array.from({ length: 10 }, (_, i) => `fleet-00${i}`),
		);
	});

	test('a service without the listing: a clear error naming the status', async () => {
		const result = await plain.adminNode({
			resource: 'tenant',
			operation: 'getAll',
			returnAll: true,
		});
		expect(result.error?.message).toBe(
			'This Site Management Service cannot list its tenants: keep the list of sites in the workflow (a Set node, a Data Table or a sheet)',
		);
		expect(result.error?.description).toMatch(
			/^Listing tenants \(GET \/api\/tenants\) is an extension of the reference server; the Admin API of the service answered 40[45]\./,
		);
	});
});

describe('Tenant > Update: Create If Missing', () => {
	test('off (the default): a mistyped ID fails with 404 and says how to create it; nothing is created', async () => {
		await ctx.site.createTenant('harbor-yoga');
		const result = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'harbour-yoga',
			fqdn: 'www.harbor-yoga.example',
		});
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.message).toBe('Tenant "harbour-yoga" not found.');
		expect(result.error?.description).toMatch(
			/^Update changes an existing tenant only\. Check the Tenant ID "harbour-yoga", or turn on Create If Missing to create the tenant\./,
		);
		expect(storedTenant('harbour-yoga')).toBeUndefined();
	});

	test('on: a missing tenant is created (with the New Tenant ID when given); an existing one updated', async () => {
		const created = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'made-by-update',
			fqdn: 'www.made.example',
			createIfMissing: true,
		});
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toEqual({
			message: 'Tenant created successfully.',
			id: 'made-by-update',
			fqdn: 'www.made.example',
			created: true,
		});
		expect(storedTenant('made-by-update')).toMatchObject({ fqdn: 'www.made.example' });

		const renamedNew = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'never-was',
			newId: 'is-now',
			createIfMissing: true,
		});
		expect(renamedNew.items[0].json).toMatchObject({ id: 'is-now', created: true });
		expect(storedTenant('is-now')).toBeDefined();
		expect(storedTenant('never-was')).toBeUndefined();

		const updated = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'made-by-update',
			fqdn: 'www.other.example',
			createIfMissing: true,
		});
		expect(updated.items[0].json).toEqual({
			message: 'Tenant updated successfully.',
			id: 'made-by-update',
			old_id: 'made-by-update',
			fqdn: 'www.other.example',
		});
	});
});

describe('Tenant > Create or Update: unchanged whenever nothing changed', () => {
	test('the domain it has already: unchanged, nothing sent; another domain: updated', async () => {
		const run = (fqdn: string) =>
			ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'same-domain', fqdn });
		expect((await run('www.same.example')).items[0].json.result).toBe('created');
		const before = storedTenant('same-domain')?.updated_at;
		expect(before).toEqual(expect.any(String));
		const again = await run('www.same.example');
		expect(again.items[0].json).toEqual({
			id: 'same-domain',
			fqdn: 'www.same.example',
			created: false,
			result: 'unchanged',
			message: 'Tenant "same-domain" exists with this domain; nothing to change.',
		});
		expect(storedTenant('same-domain')?.updated_at).toBe(before);
		expect((await run('www.changed.example')).items[0].json.result).toBe('updated');
		expect(storedTenant('same-domain')).toMatchObject({ fqdn: 'www.changed.example' });
	});

	test('a service without the listing: the domain is set and reported as updated', async () => {
		await plain.site.createTenant('no-listing');
		const result = await plain.adminNode({
			resource: 'tenant',
			operation: 'createOrUpdate',
			id: 'no-listing',
			fqdn: 'www.nl.example',
		});
		expect(result.items[0].json).toMatchObject({ result: 'updated', fqdn: 'www.nl.example' });
	});
});
