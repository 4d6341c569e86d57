/**
 * Bad node parameters, property-based (fast-check): templates and banners that are not JSON or not
 * the right shape, values of the wrong type from expressions, empty or blank required fields, bad JSON
 * bodies and MIME types. Each must fail the item with a NodeOperationError that names the parameter,
 * and nothing may be sent: the credentials point at a local HTTP server that counts every request it
 * receives (and would answer each with 200), and the count must stay 0.
 */
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import fc from 'fast-check';
import type { IDataObject, INodeCredentials, INodeParameters } from 'n8n-workflow';

import { isValidMimeType } from '../../nodes/SiteTenant/actions/asset/multipart';

import type { WorkflowRunner } from '../harness/workflow-runner';
import { report } from '../harness/fault-counter';
import { byKey, byList, byUrl } from '../harness/locators';
import { createRunner } from '../harness/nodes';

let server: Server;
let requests = 0;
let runner: WorkflowRunner;
let tenantCredential: INodeCredentials;
let adminCredential: INodeCredentials;
let tried = 0;

beforeAll(async () => {
	server = createServer((request, response) => {
		requests++;
		request.resume();
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end('{"data": [], "message": "counted"}');
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	runner = createRunner();
	tenantCredential = runner.credentials.add('siteTenantApi', {
		baseUrl: url,
		token: 'counting-server-token-0123456789',
	});
	adminCredential = runner.credentials.add('siteAdminApi', {
		baseUrl: url,
		token: 'counting-server-admin-0123456789',
	});
});

afterAll(async () => {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
	report('fuzz: node parameters', { inputs_tried: tried, requests_sent: requests });
});

/** Runs the node once with these parameters; asserts a NodeOperationError naming `label` and no request. */
async function expectRejected(
	type: 'siteTenant' | 'siteAdmin',
	parameters: INodeParameters,
	label: string,
	input?: Parameters<WorkflowRunner['runNode']>[0]['input'],
) {
	tried++;
	const before = requests;
	const result = await runner.runNode({
		type,
		parameters,
		credentials: type === 'siteTenant' ? tenantCredential : adminCredential,
		input,
	});
	// The run data carries the error as n8n stores it (its name, message, description...).
	const name = (result.error as unknown as { name?: string } | undefined)?.name;
	const where = `${JSON.stringify(parameters).slice(0, 300)} -> ${name}: ${result.error?.message}`;
	expect({ where, name }).toEqual({ where, name: 'NodeOperationError' });
	expect({ where, namesParameter: result.error?.message.includes(label) }).toEqual({
		where,
		namesParameter: true,
	});
	expect({ where, sent: requests - before }).toEqual({ where, sent: 0 });
	expect(result.items).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------

/**
 * Text a user types into a field. Text that starts with "=" is not that: n8n stores an expression
 * that way, and "=" alone evaluates to an empty value (for a JSON Body: no body at all).
 */
const isTypedText = (text: string) => !text.startsWith('=');
const notJson = fc.string({ maxLength: 60 }).filter((text) => {
	if (text.trim() === '' || text.trim() === 'null' || !isTypedText(text)) return false;
	try {
		JSON.parse(text);
		return false;
	} catch {
		return true;
	}
});
const blank = fc.constantFrom('', ' ', '   ', '\t', '\n', ' \n\t ');
const notAnObject = fc.oneof(
	fc.integer(),
	fc.double({ noNaN: true, noDefaultInfinity: true }),
	fc.boolean(),
	fc.string({ maxLength: 20 }),
	fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
);
const notAnArray = fc.oneof(
	fc.integer(),
	fc.boolean(),
	fc.string({ maxLength: 20 }),
	fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
	fc.constant(null),
);
const arrayWithANonObject = fc
	.tuple(
		fc.array(
			fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
			{ maxLength: 2 },
		),
		fc.oneof(
			fc.integer(),
			fc.string({ maxLength: 10 }),
			fc.constant(null),
			fc.array(fc.integer(), { maxLength: 2 }),
		),
		fc.nat(),
	)
	.map(([objects, bad, at]) => {
		const list: unknown[] = [...objects];
		list.splice(at % (list.length + 1), 0, bad);
		return list;
	});

/**
 * A JSON parameter given as typed text, or as an expression that hands the node the value itself
 * (any type), read from the input item.
 */
interface ParameterValue {
	value: string;
	input?: Array<{ json: IDataObject }>;
}
const asParameter = (value: unknown): fc.Arbitrary<ParameterValue> =>
	fc
		.constantFrom('text', 'expression')
		.map((form) =>
			form === 'text'
				? { value: JSON.stringify(value) }
				: { value: '={{ $json.v }}', input: [{ json: { v: value as IDataObject } }] },
		);
const asText = (text: string): ParameterValue => ({ value: text });

const RUNS = 40;

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

test('Content > Update: Templates that are not a JSON array of objects', async () => {
	const badTemplates = fc.oneof(
		notJson.map(asText),
		blank.filter((v) => v !== '').map(asText),
		notAnArray.chain(asParameter),
		arrayWithANonObject.chain(asParameter),
	);
	await fc.assert(
		fc.asyncProperty(badTemplates, async (templates) => {
			await expectRejected(
				'siteTenant',
				{
					resource: 'content',
					operation: 'update',
					url: byUrl('/page'),
					templates: templates.value,
				},
				'Templates',
				templates.input,
			);
		}),
		{ numRuns: RUNS },
	);
});

test('Content > Update: a Banner that is not a JSON object (nor empty, nor null)', async () => {
	const badBanner = fc.oneof(
		notJson.map(asText),
		notAnObject.filter((v) => v !== null && !(typeof v === 'string')).chain(asParameter),
		fc.string({ maxLength: 10 }).map((text) => asText(JSON.stringify(text))),
	);
	await fc.assert(
		fc.asyncProperty(badBanner, async (banner) => {
			await expectRejected(
				'siteTenant',
				{
					resource: 'content',
					operation: 'update',
					url: byUrl('/page'),
					templates: '[{"type": "text"}]',
					banner: banner.value,
				},
				'Banner',
				banner.input,
			);
		}),
		{ numRuns: RUNS },
	);
});

test('required fields left empty or blank name themselves', async () => {
	const cases: Array<{
		type: 'siteTenant' | 'siteAdmin';
		parameters: INodeParameters;
		field: string;
		label: string;
		/** A resource locator (Page, Variable): the value goes in as the editor saves it, From List or By Key. */
		locator?: (value: string) => INodeParameters[string];
	}> = [
		{
			type: 'siteTenant',
			parameters: { resource: 'page', operation: 'create', name: 'N', url: '/u', locale: 'en' },
			field: 'name',
			label: 'Name',
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'page', operation: 'create', name: 'N', url: '/u', locale: 'en' },
			field: 'url',
			label: 'Page URL',
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'page', operation: 'create', name: 'N', url: '/u', locale: 'en' },
			field: 'locale',
			label: 'Locale',
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'page', operation: 'get', url: byList('/u') },
			field: 'url',
			label: 'Page',
			locator: byList,
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'page', operation: 'delete', url: byList('/u') },
			field: 'url',
			label: 'Page',
			locator: byList,
		},
		{
			type: 'siteTenant',
			parameters: {
				resource: 'content',
				operation: 'update',
				url: byList('/u'),
				templates: '[{"type": "text"}]',
			},
			field: 'url',
			label: 'Page',
			locator: byList,
		},
		{
			type: 'siteTenant',
			parameters: {
				resource: 'content',
				operation: 'update',
				url: byList('/u'),
				templates: '[{"type": "text"}]',
			},
			field: 'templates',
			label: 'Templates',
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'variable', operation: 'set', key: 'k', value: 'v' },
			field: 'key',
			label: 'Key',
		},
		{
			type: 'siteTenant',
			parameters: { resource: 'variable', operation: 'delete', key: byKey('k') },
			field: 'key',
			label: 'Variable',
			locator: byKey,
		},
		{
			type: 'siteTenant',
			parameters: {
				resource: 'notification',
				operation: 'send',
				notificationId: 'n',
				message: 'm',
				status: 'info',
			},
			field: 'notificationId',
			label: 'Notification ID',
		},
		{
			type: 'siteTenant',
			parameters: {
				resource: 'notification',
				operation: 'send',
				notificationId: 'n',
				message: 'm',
				status: 'info',
			},
			field: 'message',
			label: 'Message',
		},
		{
			type: 'siteAdmin',
			parameters: { resource: 'tenant', operation: 'create', id: 't' },
			field: 'id',
			label: 'Tenant ID',
		},
		{
			type: 'siteAdmin',
			parameters: { resource: 'tenant', operation: 'update', id: 'a', newId: 'b' },
			field: 'id',
			label: 'Tenant ID',
		},
		{
			type: 'siteAdmin',
			parameters: { resource: 'tenant', operation: 'delete', id: 't' },
			field: 'id',
			label: 'Tenant ID',
		},
		{
			type: 'siteAdmin',
			parameters: { resource: 'token', operation: 'issue', id: 't' },
			field: 'id',
			label: 'Tenant ID',
		},
	];
	// Strictly empty: n8n itself refuses to run a node with an empty required parameter (before the node).
	const withValue = (
		{ parameters, field, locator }: (typeof cases)[number],
		value: string,
	): INodeParameters => ({ ...parameters, [field]: locator ? locator(value) : value });
	for (const testCase of cases) {
		const { type } = testCase;
		tried++;
		const before = requests;
		await expect(
			runner.runNode({
				type,
				parameters: withValue(testCase, ''),
				credentials: type === 'siteTenant' ? tenantCredential : adminCredential,
			}),
		).rejects.toThrow(/has issues/);
		expect(requests).toBe(before);
	}
	// Blank, or empty from an expression: the node's own check names the parameter.
	await fc.assert(
		fc.asyncProperty(
			fc.constantFrom(...cases),
			fc.oneof(
				blank.filter((v) => v !== ''),
				fc.constantFrom('={{ "" }}', '={{ "   " }}', '={{ null }}', '={{ undefined }}'),
			),
			async (testCase, value) => {
				await expectRejected(testCase.type, withValue(testCase, value), testCase.label);
			},
		),
		{ numRuns: RUNS * 2 },
	);
});

test('Custom API Call: a JSON Body that is not JSON, or not an object or array', async () => {
	const badBody = fc.oneof(
		notJson.map(asText),
		fc
			.oneof(
				fc.integer(),
				fc.boolean(),
				fc.string({ minLength: 1, maxLength: 10 }).filter((t) => t.trim() !== ''),
			)
			.chain(asParameter),
		arrayWithANonObject.chain(asParameter),
	);
	await fc.assert(
		fc.asyncProperty(badBody, fc.constantFrom('POST', 'PUT', 'DELETE'), async (body, method) => {
			await expectRejected(
				'siteTenant',
				{
					resource: 'customApiCall',
					operation: 'call',
					method,
					path: '/api/settings',
					body: body.value,
				},
				'JSON Body',
				body.input,
			);
		}),
		{ numRuns: RUNS },
	);
});

// Strings outside the MIME grammar the node documents (type/subtype, optional parameters; its own unit
// tests in shared-units.test.ts). A stricter hand-written filter here let through strings such as
// "a/b;c", which are valid, and made this test fail now and then.
test('Asset > Upload: a MIME type that is not one, or no binary field named', async () => {
	const input = [
		{
			json: {},
			binary: { data: { data: Buffer.from('file'), fileName: 'a.txt', mimeType: 'text/plain' } },
		},
	];
	await fc.assert(
		fc.asyncProperty(
			fc
				.string({ minLength: 1, maxLength: 30 })
				.filter((text) => text.trim() !== '' && isTypedText(text) && !isValidMimeType(text.trim())),
			async (mimeType) => {
				await expectRejected(
					'siteTenant',
					{
						resource: 'asset',
						operation: 'upload',
						binaryPropertyName: 'data',
						additionalFields: { mimeType },
					},
					'MIME Type',
					input,
				);
			},
		),
		{ numRuns: RUNS / 2 },
	);
	await expectRejected(
		'siteTenant',
		{ resource: 'asset', operation: 'upload', binaryPropertyName: '  ' },
		'Input Binary Field',
		input,
	);
});

test('after all those inputs, not one request reached the server', () => {
	expect(tried).toBeGreaterThan(200);
	expect(requests).toBe(0);
});
