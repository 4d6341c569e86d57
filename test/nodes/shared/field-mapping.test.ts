/**
 * Version 2 of the action nodes: Page > Create, Variable > Set and Tenant > Create take their fields
 * through n8n's resource mapper, Map Automatically (the item's own fields) or Map Each Column Manually,
 * in n8n's engine against the reference server. Types are checked and a wrong one fails its item
 * naming the item and the field; fields the service does not have are ignored or, by the option,
 * refused.
 */
import type { INodeParameters, ResourceMapperFields } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { SiteAdmin } from '../../../nodes/SiteAdmin/SiteAdmin.node';
import { SiteTenant } from '../../../nodes/SiteTenant/SiteTenant.node';
import { listPages, useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

/** The resource mapper's value as n8n stores it, in either mode. */
const mapper = (mappingMode: string, value: INodeParameters | null) => ({
	mappingMode,
	value,
	matchingColumns: [],
	schema: [],
	attemptToConvertTypes: false,
	convertFieldsToString: false,
});

const autoMap = (extra: INodeParameters = {}): INodeParameters => ({
	columns: mapper('autoMapInputData', null),
	...extra,
});

const errorsOf = (outputs: Array<Array<{ json: Record<string, unknown> }>>) =>
	(outputs[1] ?? []).map((item) => String(item.json.message));

describe('Page > Create, version 2', () => {
	test('Map Automatically creates each item as a page, with the types the service expects; other fields are left out', async () => {
		const tenant = await ctx.tenant('map-auto');
		const result = await tenant.run(
			{ resource: 'page', operation: 'create', ...autoMap() },
			{
				typeVersion: 2,
				input: [
					{ json: { name: 'About', url: '/about', locale: 'en', row_number: 2 } },
					{
						json: {
							name: ' Prices ',
							url: '/prices',
							locale: 'de',
							meta_title: 'Prices 2027',
							meta_description: 2027,
							draft: 'TRUE',
						},
					},
				],
			},
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const pages = Object.fromEntries(
			(await listPages(tenant.client)).map((page) => [page.url, page]),
		);
		expect(pages['/about']).toMatchObject({ name: 'About', locale: 'en', draft: false });
		expect(pages['/about']).not.toHaveProperty('row_number');
		expect(pages['/prices']).toMatchObject({
			name: 'Prices',
			locale: 'de',
			meta_title: 'Prices 2027',
			meta_description: '2027',
			draft: true,
		});
	});

	test('a wrong type or a missing required field fails that item, naming the item and the field; the others are created', async () => {
		const tenant = await ctx.tenant('map-types');
		const result = await tenant.run(
			{ resource: 'page', operation: 'create', ...autoMap() },
			{
				typeVersion: 2,
				onError: 'continueErrorOutput',
				input: [
					{ json: { name: 'Fine', url: '/fine', locale: 'en' } },
					{ json: { name: 'Maybe', url: '/maybe', locale: 'en', draft: 'maybe' } },
					{ json: { name: { text: 'Object' }, url: '/object', locale: 'en' } },
					{ json: { name: 'No locale', url: '/no-locale' } },
					{ json: { name: 'Blank', url: '/blank', locale: '  ' } },
				],
			},
		);
		expect(result.outputs[0].map((item) => item.json.url)).toEqual(['/fine']);
		expect(errorsOf(result.outputs)).toEqual([
			'Field "draft" (Draft) of item 1 must be true or false',
			'Field "name" (Name) of item 2 must be text',
			'Field "locale" (Locale) of item 3 is required',
			'Field "locale" (Locale) of item 4 is required',
		]);
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/fine']);
	});

	test('Refuse fails an item with a field the service does not have, naming it; nothing of that item is sent', async () => {
		const tenant = await ctx.tenant('map-refuse');
		const result = await tenant.run(
			{ resource: 'page', operation: 'create', ...autoMap({ unknownFields: 'refuse' }) },
			{
				typeVersion: 2,
				onError: 'continueErrorOutput',
				input: [
					{ json: { name: 'Kept', url: '/kept', locale: 'en' } },
					{ json: { name: 'Row', url: '/row', locale: 'en', row_number: 3 } },
				],
			},
		);
		expect(result.outputs[0].map((item) => item.json.url)).toEqual(['/kept']);
		expect(errorsOf(result.outputs)).toEqual([
			'Item 1 has a field the service does not have: "row_number"',
		]);
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/kept']);
	});

	test('Map Each Column Manually takes the mapped values (expressions per field), checked the same way', async () => {
		const tenant = await ctx.tenant('map-manual');
		const columns = (value: Record<string, string>) => ({
			columns: mapper('defineBelow', value),
		});
		const created = await tenant.run(
			{
				resource: 'page',
				operation: 'create',
				...columns({ name: '={{ $json.title }}', url: '={{ $json.path }}', locale: 'en' }),
			},
			{ typeVersion: 2, input: [{ json: { title: 'Team', path: '/team' } }] },
		);
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ url: '/team', name: 'Team', locale: 'en' });

		const wrong = await tenant.run(
			{
				resource: 'page',
				operation: 'create',
				...columns({ name: 'Jobs', url: '/jobs', locale: 'en', draft: '={{ $json.draft }}' }),
			},
			{ typeVersion: 2, input: [{ json: { draft: 'later' } }] },
		);
		expect(wrong.error?.message).toBe('Field "draft" (Draft) of item 0 must be true or false');
		expect((await listPages(tenant.client)).map((page) => page.url)).toEqual(['/team']);
	});

	test('Dry Run shows what Map Automatically would send and writes nothing', async () => {
		const tenant = await ctx.tenant('map-dry');
		const result = await tenant.run(
			{ resource: 'page', operation: 'create', ...autoMap({ dryRun: true }) },
			{ typeVersion: 2, input: [{ json: { name: 'Dry', url: '/dry', locale: 'en', extra: 1 } }] },
		);
		expect(result.items[0].json).toMatchObject({
			dryRun: { result: 'would create', wouldSend: { name: 'Dry', url: '/dry', locale: 'en' } },
		});
		expect(await listPages(tenant.client)).toEqual([]);
	});

	test('a version 1 node keeps its parameters: Name, Page URL and Locale', async () => {
		const tenant = await ctx.tenant('map-v1');
		const result = await tenant.run(
			{ resource: 'page', operation: 'create', name: 'Old', url: '/old', locale: 'en' },
			{ typeVersion: 1 },
		);
		expect(result.items[0].json).toMatchObject({ url: '/old', name: 'Old' });
	});
});

describe('Variable > Set, version 2', () => {
	test('Map Automatically sets each item; an empty value is a value, a missing one fails the item', async () => {
		const tenant = await ctx.tenant('map-vars');
		const result = await tenant.run(
			{ resource: 'variable', operation: 'set', ...autoMap() },
			{
				typeVersion: 2,
				onError: 'continueErrorOutput',
				input: [
					{ json: { key: 'list', value: 'weekly' } },
					{ json: { key: 'empty', value: '' } },
					{ json: { key: 'missing' } },
				],
			},
		);
		expect(result.outputs[0].map((item) => item.json)).toEqual([
			{ key: 'list', value: 'weekly' },
			{ key: 'empty', value: '' },
		]);
		expect(errorsOf(result.outputs)).toEqual(['Field "value" (Value) of item 2 is required']);
		const listed = await tenant.client.get('/api/variables');
		expect(listed.data.data).toEqual(
			expect.arrayContaining([
				{ key: 'list', value: 'weekly' },
				{ key: 'empty', value: '' },
			]),
		);
		expect(listed.data.data).toHaveLength(2);
	});
});

describe('Tenant > Create, version 2', () => {
	test('Map Automatically creates a tenant from each item', async () => {
		const result = await ctx.adminNode(
			{ resource: 'tenant', operation: 'create', ...autoMap() },
			{
				typeVersion: 2,
				onError: 'continueErrorOutput',
				input: [
					{ json: { id: 'mapped-one', fqdn: 'one.example' } },
					{ json: { id: 'mapped-two', customer: 'ACME' } },
					{ json: { id: 42, fqdn: 'x.example' } },
					{ json: { id: ['mapped-three'] } },
				],
			},
		);
		expect(result.outputs[0].map((item) => [item.json.id, item.json.fqdn])).toEqual([
			['mapped-one', 'one.example'],
			['mapped-two', null],
			['42', 'x.example'],
		]);
		expect(errorsOf(result.outputs)).toEqual(['Field "id" (Tenant ID) of item 3 must be text']);
		const admin = ctx.site.admin;
		const ids = (await admin.get('/api/tenants')).data.data.map((t: { id: string }) => t.id);
		expect(ids).toEqual(expect.arrayContaining(['mapped-one', 'mapped-two', '42']));
		expect(ids).not.toContain('mapped-three');
	});
});

test("the editor's field lists name the fields as the service does, required ones marked", async () => {
	const tenantNode = new SiteTenant();
	const adminNode = new SiteAdmin();
	const fieldsOf = async (method: () => Promise<ResourceMapperFields>) =>
		(await method()).fields.map((field) => [field.id, field.type, field.required]);
	const context = {} as never;
	expect(await fieldsOf(() => tenantNode.methods.resourceMapping.pageFields.call(context))).toEqual(
		[
			['name', 'string', true],
			['url', 'string', true],
			['locale', 'string', true],
			['meta_title', 'string', false],
			['meta_description', 'string', false],
			['draft', 'boolean', false],
		],
	);
	expect(
		await fieldsOf(() => tenantNode.methods.resourceMapping.variableFields.call(context)),
	).toEqual([
		['key', 'string', true],
		['value', 'string', true],
	]);
	expect(
		await fieldsOf(() => adminNode.methods.resourceMapping.tenantFields.call(context)),
	).toEqual([
		['id', 'string', true],
		['fqdn', 'string', false],
	]);
	// Each mapper parameter is the displayed one for its operation in version 2 only.
	const columns = tenantNode.description.properties.filter((p) => p.name === 'columns');
	expect(columns).toHaveLength(2);
	expect(
		columns.every(
			(property) =>
				!NodeHelpers.displayParameter(
					{ resource: 'page', operation: 'create' },
					property,
					{ typeVersion: 1 } as never,
					tenantNode.description,
				),
		),
	).toBe(true);
});
