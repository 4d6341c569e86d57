'use strict';
/**
 * Map Automatically in a real n8n (2.x, and 1.x through N8N1_FILES): version 2 of the Tenant and
 * Admin nodes take Page > Create's and Tenant > Create's fields from the items themselves, named as
 * the service names them, with no expression per field. A row whose field has the wrong type goes to
 * n8n's error output naming the item and the field; the other rows are created. One small stack of
 * its own (server, n8n user folder, n8n).
 */
const stack = require('../../scripts/lib/stack');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('field mapping');

const TENANT = 'mapped';

/** Rows as a spreadsheet gives them: the service's field names, a row number, a text "TRUE". */
const ROWS = [
	{ row_number: 2, name: 'About us', url: '/about-us', locale: 'en', draft: 'FALSE' },
	{ row_number: 3, name: 'Prices', url: '/prices', locale: 'de', meta_title: 'Prices 2027' },
	{ row_number: 4, name: 'Later', url: '/later', locale: 'en', draft: 'maybe' },
];

const AUTO_MAP = {
	mappingMode: 'autoMapInputData',
	value: null,
	matchingColumns: [],
	schema: [],
	attemptToConvertTypes: false,
	convertFieldsToString: false,
};

/** Manual trigger → the rows (Set, raw JSON) → Split Out → `node`. */
function mappedWorkflow(id, rows, node) {
	const nodes = [
		e2eStack.workflowNode({
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		e2eStack.workflowNode({
			name: 'Rows',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [200, 0],
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} },
		}),
		e2eStack.workflowNode({
			name: 'Each row',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [400, 0],
			parameters: { fieldToSplitOut: 'rows', options: {} },
		}),
		e2eStack.workflowNode({ position: [600, 0], ...node }),
	];
	return e2eStack.workflowJson({
		id,
		name: `field mapping: ${id}`,
		nodes,
		links: e2eStack.chainLinks(['Start', 'Rows', 'Each row', node.name]),
	});
}

const WORKFLOWS = {
	pages: mappedWorkflow('mapPages00000001', ROWS, {
		name: 'Create pages',
		type: 'n8n-nodes-site-management.siteTenant',
		typeVersion: 2,
		onError: 'continueErrorOutput',
		parameters: { resource: 'page', operation: 'create', columns: AUTO_MAP },
		credentials: e2eStack.credentialRef(stack.CREDENTIALS.tenant),
	}),
	tenants: mappedWorkflow(
		'mapTenants000001',
		[
			{ id: 'mapped-shop', fqdn: 'shop.example', customer: 'ACME' },
			{ id: 'mapped-blog', customer: 'ACME' },
		],
		{
			name: 'Create tenants',
			type: 'n8n-nodes-site-management.siteAdmin',
			typeVersion: 2,
			parameters: { resource: 'tenant', operation: 'create', columns: AUTO_MAP },
			credentials: e2eStack.credentialRef(stack.CREDENTIALS.admin),
		},
	),
};

const ctx = {};

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	const { token: tenantToken, client } = await e2eStack.addTenant(ctx.server, TENANT);
	ctx.site = client;
	ctx.admin = stack.siteClient(ctx.server.url, ctx.server.adminToken);
	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-mapping-'));
	await e2eStack.importFixtures(ctx, {
		credentials: e2eStack.siteCredentialsOf(ctx.server, tenantToken, [
			'siteTenantApi',
			'siteAdminApi',
		]),
		workflows: Object.values(WORKFLOWS),
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'mapping');
	say(`stack ready: server ${ctx.server.url}, n8n ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

test('Page > Create, Map Automatically: each row a page with the types the service expects; a wrong type goes to the error output naming item and field', async () => {
	const { run, failed } = await ctx.runner.execute(WORKFLOWS.pages.id);
	expect(failed).toBe(false);
	expect(n8nCommands.nodeItems(run, 'Create pages').map((page) => page.url)).toEqual([
		'/about-us',
		'/prices',
	]);
	const errors = n8nCommands.nodeItems(run, 'Create pages', { output: 1 });
	expect(errors.map((item) => item.message)).toEqual([
		'Field "draft" (Draft) of item 2 must be true or false',
	]);

	const pages = (await ctx.site('GET', '/api/pages')).data.data;
	const byUrl = Object.fromEntries(pages.map((page) => [page.url, page]));
	expect(Object.keys(byUrl).sort()).toEqual(['/about-us', '/prices']);
	expect(byUrl['/about-us']).toMatchObject({ name: 'About us', locale: 'en', draft: false });
	expect(byUrl['/prices']).toMatchObject({ locale: 'de', meta_title: 'Prices 2027' });
	expect(byUrl['/prices']).not.toHaveProperty('row_number');
});

test('Tenant > Create, Map Automatically: a tenant from each row, fields the service does not have left out', async () => {
	const { run, failed } = await ctx.runner.execute(WORKFLOWS.tenants.id);
	expect(failed).toBe(false);
	expect(n8nCommands.nodeItems(run, 'Create tenants').map((t) => [t.id, t.fqdn])).toEqual([
		['mapped-shop', 'shop.example'],
		['mapped-blog', null],
	]);
	const tenants = (await ctx.admin('GET', '/api/tenants')).data.data;
	expect(tenants).toEqual(
		expect.arrayContaining([
			expect.objectContaining({ id: 'mapped-shop', fqdn: 'shop.example' }),
			expect.objectContaining({ id: 'mapped-blog' }),
		]),
	);
});
