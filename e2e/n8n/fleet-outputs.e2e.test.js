'use strict';
/**
 * n8n's On Error settings on the action nodes in a real n8n (2.x by default; n8n 1.x with
 * SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime), each workflow run in one `n8n start` as the editor runs it
 * (e2eStack.restRunner), against the reference server:
 *
 * - Continue (using error output): a Page > Create over five pages, two of which fail (a 409, a 400),
 *   branches on each output: the success branch notifies the three created pages only, the error
 *   branch reports the two failures with their status, its items holding the input's fields. The
 *   same for the Admin node (Tenant > Create of a tenant that exists).
 * - Continue (regular output): the error items stay in the one output, as they always were.
 * - Stop: the error says which items were applied, which failed and which never started.
 * - The every-site example (examples/every-site-update.json) with a mistyped site in its list: the
 *   site that failed leaves by the error output, and only the sites that were updated get told so.
 */
const fs = require('node:fs');
const path = require('node:path');

const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const stack = require('../../scripts/lib/stack');
const e2eStack = require('./lib/stack');

const say = e2eStack.progressLog('n8n fleet outputs');

const PACKAGE = 'n8n-nodes-site-management';
const TENANT = 'fleet';
const URLS = ['/ok-0', '/taken', '/ok-2', 'bad url', '/ok-4'];

const node = (name, type, parameters, x, y = 0, extra = {}) =>
	e2eStack.workflowNode({ name, type, typeVersion: 1, parameters, position: [x, y], ...extra });
const credentialRef = (key) => ({
	credentials: {
		[stack.CREDENTIALS[key].type]: {
			id: stack.CREDENTIALS[key].id,
			name: stack.CREDENTIALS[key].name,
		},
	},
});
const tenantNode = (name, parameters, x, y, extra = {}) =>
	node(name, `${PACKAGE}.siteTenant`, parameters, x, y, { ...credentialRef('tenant'), ...extra });

/** Start -> a Set node holding `list` under `field` -> Split Out: one item each. */
function source(prefix, field, list, y = 0) {
	return [
		e2eStack.workflowNode({
			name: `${prefix} list`,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ [field]: list }), options: {} },
			position: [200, y],
		}),
		e2eStack.workflowNode({
			name: `${prefix} each`,
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			parameters: { fieldToSplitOut: field, options: {} },
			position: [400, y],
		}),
	];
}

const createPage = (options = {}) => ({
	resource: 'page',
	operation: 'create',
	name: 'Welcome',
	url: '={{ $json.url }}',
	locale: 'en',
	options,
});

// The notification ID from the Split Out item's row (paired items: the same on both branches).
const notify = (prefix, message) => ({
	resource: 'notification',
	operation: 'send',
	notificationId: `={{ "${prefix}-" + $('Pages each').item.json.row }}`,
	message,
	status: 'info',
	options: {},
});

const main = (...outputs) => ({
	main: outputs.map((targets) =>
		targets.map((target) => ({ node: target, type: 'main', index: 0 })),
	),
});

/** Page > Create (and Admin Tenant > Create) with a branch on each output. */
const errorOutputWorkflow = {
	id: 'fleetErrorOut001',
	name: 'fleet: error output',
	active: false,
	settings: { executionOrder: 'v1' },
	pinData: {},
	nodes: [
		node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
		...source(
			'Pages',
			'pages',
			URLS.map((url, row) => ({ url, row })),
		),
		tenantNode('Create page', createPage(), 600, 0, { onError: 'continueErrorOutput' }),
		tenantNode('Welcome', notify('welcome', '={{ "Welcome to " + $json.url }}'), 800, -100),
		tenantNode(
			'Report failure',
			notify('failed', '={{ "Not created: " + $json.url + " (" + $json.error.httpCode + ")" }}'),
			800,
			100,
		),
		...source('Tenants', 'tenants', [{ id: TENANT }, { id: 'fleet-new' }], 300),
		node(
			'Create tenant',
			`${PACKAGE}.siteAdmin`,
			{ resource: 'tenant', operation: 'create', id: '={{ $json.id }}', options: {} },
			600,
			300,
			{ ...credentialRef('admin'), onError: 'continueErrorOutput' },
		),
		node('Created', 'n8n-nodes-base.noOp', {}, 800, 200),
		node('Not created', 'n8n-nodes-base.noOp', {}, 800, 400),
	],
	connections: {
		Start: main(['Pages list', 'Tenants list']),
		'Pages list': main(['Pages each']),
		'Pages each': main(['Create page']),
		'Create page': main(['Welcome'], ['Report failure']),
		'Tenants list': main(['Tenants each']),
		'Tenants each': main(['Create tenant']),
		'Create tenant': main(['Created'], ['Not created']),
	},
};

const oneNodeWorkflow = (id, name, urls, parameters, extra) =>
	e2eStack.workflowJson({
		id,
		name,
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', {}, 0),
			...source(
				'Pages',
				'pages',
				urls.map((url) => ({ url })),
			),
			tenantNode('Create page', parameters, 600, 0, extra),
		],
		links: [
			['Start', 'Pages list'],
			['Pages list', 'Pages each'],
			['Pages each', 'Create page'],
		],
	});

/** The shipped every-site example, its list of sites replaced by `sites`. */
function everySiteExample(sites) {
	const example = JSON.parse(
		fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'every-site-update.json'), 'utf8'),
	);
	const list = example.nodes.find((candidate) => candidate.name === 'Sites');
	list.parameters.jsonOutput = JSON.stringify({ sites });
	return example;
}

const EVERY_SITE = [
	{ tenant: TENANT, googleCode: 'G-FLEET001' },
	{ tenant: 'flet', googleCode: 'G-TYPO0001' },
];

const WORKFLOWS = {
	everySite: everySiteExample(EVERY_SITE),
	errorOutput: errorOutputWorkflow,
	regular: oneNodeWorkflow(
		'fleetRegular0001',
		'fleet: regular output',
		['/r-0', '/taken', '/r-2'],
		createPage(),
		{ onError: 'continueRegularOutput' },
	),
	stop: oneNodeWorkflow(
		'fleetStop0000001',
		'fleet: stop',
		['/s-0', '/s-1', '/taken', '/s-3', '/s-4'],
		createPage({ concurrency: 1 }),
	),
};

const ctx = {};

async function pageUrls() {
	const listed = await ctx.site('GET', '/api/pages?per_page=100');
	return listed.data.data.map((page) => page.url).sort();
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	const { token: tenantToken, client } = await e2eStack.addTenant(ctx.server, TENANT);
	ctx.site = client;
	expect(
		(await ctx.site('POST', '/api/page', { name: 'Taken', url: '/taken', locale: 'en' })).status,
	).toBe(201);

	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-fleet-'));
	await e2eStack.importFixtures(ctx, {
		credentials: e2eStack.siteCredentialsOf(ctx.server, tenantToken, [
			'siteTenantApi',
			'siteAdminApi',
			'siteManagedTenantApi',
		]),
		workflows: Object.values(WORKFLOWS),
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'fleet');
	say(`stack ready: server ${ctx.server.url}, n8n ${ctx.n8nUrl}, user folder ${ctx.userFolder}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => await e2eStack.stopStack(ctx));

test('Continue (using error output): each branch gets only its own items, failures with their status', async () => {
	const run = await e2eStack.executeOk(WORKFLOWS.errorOutput.id, { runner: ctx.runner, log: say });
	const items = (name, output = 0) => n8nCommands.nodeItems(run, name, { output });

	expect(items('Create page').map((page) => page.url)).toEqual(['/ok-0', '/ok-2', '/ok-4']);
	expect(items('Create page', 1)).toEqual([
		{
			url: '/taken',
			row: 1,
			message: 'A page with url "/taken" already exists.',
			error: {
				message: 'A page with url "/taken" already exists.',
				operation: 'Page > Create',
				httpCode: '409',
				errorCode: 'conflict',
			},
		},
		expect.objectContaining({
			url: 'bad url',
			row: 3,
			error: expect.objectContaining({ httpCode: '400', errorCode: 'validation_failed' }),
		}),
	]);
	expect(items('Welcome').map((sent) => sent.message)).toEqual([
		'Welcome to /ok-0',
		'Welcome to /ok-2',
		'Welcome to /ok-4',
	]);
	expect(items('Report failure').map((sent) => sent.message)).toEqual([
		'Not created: /taken (409)',
		'Not created: bad url (400)',
	]);

	expect(items('Created').map((tenant) => tenant.id)).toEqual(['fleet-new']);
	expect(items('Not created')).toEqual([
		expect.objectContaining({
			id: TENANT,
			message: expect.any(String),
			error: expect.objectContaining({ operation: 'Tenant > Create', httpCode: '409' }),
		}),
	]);
	expect(await pageUrls()).toEqual(['/ok-0', '/ok-2', '/ok-4', '/taken']);
});

test('Continue (regular output): the error items stay in the output, as they were', async () => {
	const run = await e2eStack.executeOk(WORKFLOWS.regular.id, { runner: ctx.runner, log: say });
	const items = n8nCommands.nodeItems(run, 'Create page');
	expect(items.map((item) => item.url ?? item.httpCode)).toEqual(['/r-0', '409', '/r-2']);
	expect(items[1]).toEqual({ error: 'A page with url "/taken" already exists.', httpCode: '409' });
});

test('Stop: the error names the operation, the items applied, the one that failed, those not started', async () => {
	say(`run ${WORKFLOWS.stop.id} in n8n`);
	const result = await ctx.runner.execute(WORKFLOWS.stop.id);
	expect(result.failed).toBe(true);
	const error = result.run?.data?.resultData?.error;
	expect(error?.message).toBe('A page with url "/taken" already exists.');
	expect(error?.description).toBe(
		[
			'Page > Create stopped at the first failure: 2 of 5 items applied, 1 failed, 2 not started.',
			'Applied: items 0-1.',
			'Failed: item 2: A page with url "/taken" already exists.',
			'Not started: items 3-4.',
		].join('\n'),
	);
	expect((await pageUrls()).filter((url) => url.startsWith('/s-'))).toEqual(['/s-0', '/s-1']);
});

test('the every-site example: a site that fails is listed under "Sites that failed" and its owner is not told', async () => {
	const run = await e2eStack.executeOk(WORKFLOWS.everySite.id, { runner: ctx.runner, log: say });
	const items = (name, output = 0) => n8nCommands.nodeItems(run, name, { output });
	expect(items('Tell the site owner').map((sent) => sent.message)).toEqual([
		'Your site now uses the analytics code G-FLEET001.',
	]);
	expect(items('Sites that failed')).toEqual([
		expect.objectContaining({
			tenant: 'flet',
			googleCode: 'G-TYPO0001',
			message: expect.any(String),
			error: expect.objectContaining({ operation: 'Setting > Update' }),
		}),
	]);
	expect((await ctx.site('GET', '/api/settings')).data.settings.google_code).toBe('G-FLEET001');
});
