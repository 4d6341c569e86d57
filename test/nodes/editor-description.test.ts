/**
 * What the editor shows of the nodes before anything runs: Docs links to pages that need no anchor,
 * three distinct icons (light and dark), canvas subtitles with the operation's name, and parameters
 * that show no error and lose nothing as they come.
 */
import { createHash } from 'crypto';
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';

import type { INode, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { SiteAdminApi } from '../../credentials/SiteAdminApi.credentials';
import { SiteContactFormSecretApi } from '../../credentials/SiteContactFormSecretApi.credentials';
import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';
import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import { SiteAdmin } from '../../nodes/SiteAdmin/SiteAdmin.node';
import { SiteContactFormTrigger } from '../../nodes/SiteContactFormTrigger/SiteContactFormTrigger.node';
import { SitePageTrigger } from '../../nodes/SitePageTrigger/SitePageTrigger.node';
import { SiteTenant } from '../../nodes/SiteTenant/SiteTenant.node';
import { TestNodeTypes } from '../harness/workflow-runner';

const ROOT = join(__dirname, '..', '..');
const NODES = {
	SiteAdmin: new SiteAdmin(),
	SiteTenant: new SiteTenant(),
	SiteContactFormTrigger: new SiteContactFormTrigger(),
	SitePageTrigger: new SitePageTrigger(),
};

const REPOSITORY_FILE = 'https://github.com/site-management/n8n-nodes-site-management/blob/main/';

test("what n8n 2.x's AI builder and node search read: a builderHint on every node, CMS aliases", () => {
	const ownTypes = Object.values(NODES).map(
		(node) => `n8n-nodes-site-management.${node.description.name}`,
	);
	for (const [name, node] of Object.entries(NODES)) {
		const hint = node.description.builderHint;
		expect({ name, searchHint: hint?.searchHint?.length ?? 0 }).toEqual({
			name,
			searchHint: expect.any(Number),
		});
		expect(hint?.searchHint).toMatch(/Site Management/);
		for (const related of hint?.relatedNodes ?? []) {
			// A node of this package, or one of n8n's own.
			expect(
				ownTypes.includes(related.nodeType) ||
					/^(n8n-nodes-base|@n8n\/n8n-nodes-langchain)\./.test(related.nodeType),
			).toBe(true);
			expect(related.relationHint.length).toBeGreaterThan(20);
		}
		const codex = JSON.parse(readFileSync(join(ROOT, 'nodes', name, `${name}.node.json`), 'utf8'));
		expect({ name, alias: codex.alias }).toEqual({
			name,
			alias: expect.arrayContaining(['CMS', 'Website', 'Pages']),
		});
	}
});

test('every Docs link (nodes and credentials) is a page of the repository without an anchor', () => {
	const links: string[] = [];
	for (const name of Object.keys(NODES)) {
		const codex = JSON.parse(readFileSync(join(ROOT, 'nodes', name, `${name}.node.json`), 'utf8'));
		for (const entry of [
			...codex.resources.primaryDocumentation,
			...codex.resources.credentialDocumentation,
		])
			links.push(entry.url);
	}
	for (const credential of [
		new SiteAdminApi(),
		new SiteTenantApi(),
		new SiteManagedTenantApi(),
		new SiteContactFormSecretApi(),
	]) {
		links.push(credential.documentationUrl as string);
	}
	expect(links).toHaveLength(12);
	for (const link of links) {
		// n8n appends its tracking parameters (?utm_…): after an anchor they would break it.
		expect(link).not.toContain('#');
		expect(link.startsWith(REPOSITORY_FILE)).toBe(true);
		expect(existsSync(join(ROOT, link.slice(REPOSITORY_FILE.length)))).toBe(true);
	}
	// Each node's own page; the credentials' page for the credentials.
	expect(new Set(links)).toEqual(
		new Set(
			['nodes', 'contact-form-trigger', 'page-trigger', 'credentials'].map(
				(page) => `${REPOSITORY_FILE}docs/${page}.md`,
			),
		),
	);
});

test('four distinct icons, each with a dark variant of its own', () => {
	const digests = new Set<string>();
	for (const [name, node] of Object.entries(NODES)) {
		const icon = node.description.icon as { light: string; dark: string };
		for (const file of [icon.light, icon.dark]) {
			const svg = readFileSync(join(ROOT, 'nodes', name, file.replace(/^file:/, '')));
			digests.add(createHash('sha256').update(svg).digest('hex'));
		}
	}
	expect(digests.size).toBe(8);
});

test("the page trigger's subtitle names its events", () => {
	const node = NODES.SitePageTrigger;
	const workflow = new Workflow({
		nodes: [
			{
				id: 'n',
				name: 'Node',
				type: 'sitePageTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: { events: ['pagePublished', 'pageRemoved'] },
			},
		],
		connections: {},
		active: false,
		nodeTypes: new TestNodeTypes({ sitePageTrigger: node }),
	});
	expect(
		workflow.expression.getSimpleParameterValue(
			workflow.getNode('Node')!,
			node.description.subtitle as string,
			'internal',
			{},
		),
	).toBe('Pages published, removed');
});

describe('canvas subtitles name the operation', () => {
	const nodeTypes = new TestNodeTypes({ siteTenant: NODES.SiteTenant, siteAdmin: NODES.SiteAdmin });
	const subtitle = (type: string, node: INodeType, parameters: Record<string, string>) => {
		const workflow = new Workflow({
			nodes: [{ id: 'n', name: 'Node', type, typeVersion: 1, position: [0, 0], parameters }],
			connections: {},
			active: false,
			nodeTypes,
		});
		return workflow.expression.getSimpleParameterValue(
			workflow.getNode('Node')!,
			node.description.subtitle as string,
			'internal',
			{},
		);
	};
	const operations = (node: INodeType) =>
		(node.description.properties as INodeProperties[])
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				(property.displayOptions?.show?.resource as string[]).flatMap((resource) =>
					(property.options as Array<{ value: string; action: string }>).map((option) => ({
						resource,
						...option,
					})),
				),
			);

	test.each([
		['siteTenant', NODES.SiteTenant],
		['siteAdmin', NODES.SiteAdmin],
	])('%s: every operation shows its action (its human name)', (type, node) => {
		const all = operations(node);
		expect(all.length).toBeGreaterThan(3);
		for (const { resource, value, action } of all) {
			expect(subtitle(type, node, { resource, operation: value })).toBe(action);
		}
		if (type === 'siteTenant')
			expect(subtitle(type, node, { resource: 'ai', operation: 'getPageContext' })).toBe(
				'Get page context for AI',
			);
	});
});

/** The version a node dragged in now gets (n8n's editor: defaultVersion, else the last version). */
const newestVersion = (node: INodeType): number => {
	const { defaultVersion, version } = node.description;
	return defaultVersion ?? (Array.isArray(version) ? version[version.length - 1] : version);
};

/** The parameters n8n gives a node from `values`, as the editor does on every change. */
function parametersOf(
	node: INodeType,
	values: INodeParameters,
	typeVersion = newestVersion(node),
): INodeParameters {
	return NodeHelpers.getNodeParameters(
		node.description.properties,
		values,
		true,
		false,
		{ typeVersion },
		node.description,
	) as INodeParameters;
}

/** Whether a property of that name is displayed for `values`. */
function displayed(
	node: INodeType,
	values: INodeParameters,
	name: string,
	typeVersion = newestVersion(node),
) {
	const all = parametersOf(node, values, typeVersion);
	return node.description.properties.some(
		(property) =>
			property.name === name &&
			NodeHelpers.displayParameter(all, property, { typeVersion } as INode, node.description),
	);
}

function allProperties(properties: unknown[]): INodeProperties[] {
	return (properties as INodeProperties[]).flatMap((property) => [
		property,
		...allProperties(
			((property.options ?? []) as Array<{ values?: unknown[] }>).flatMap((option) =>
				'values' in option && Array.isArray(option.values)
					? option.values
					: 'type' in option
						? [option]
						: [],
			),
		),
	]);
}

test('no JSON parameter starts as an empty field (n8n marks one "Unexpected end of JSON input")', () => {
	const jsonProperties = Object.values(NODES).flatMap((node) =>
		allProperties(node.description.properties).filter((property) => property.type === 'json'),
	);
	// Previewed Values (Setting > Update, Variable > Set and Delete, Page > Delete) starts as an
	// expression (the item's Dry Run preview), never empty.
	expect(jsonProperties.map(({ name, default: value }) => ({ name, value }))).toEqual(
		Array(4).fill({ name: 'previewedValues', value: '={{ $json.dryRun }}' }),
	);
	// The JSON fields are multi-line text fields, empty meaning "not sent".
	for (const name of ['templates', 'banner', 'body', 'proposalJson']) {
		const property = allProperties(NODES.SiteTenant.description.properties).find(
			(candidate) => candidate.name === name,
		);
		expect(property).toMatchObject({ type: 'string', default: '' });
	}
});

describe('safe defaults', () => {
	const content = { resource: 'content', operation: 'update' };

	test('Content > Update: Templates required and empty, Clear All Blocks off, the notice visible', () => {
		expect(parametersOf(NODES.SiteTenant, content)).toMatchObject({
			templates: '',
			clearAllBlocks: false,
		});
		expect(displayed(NODES.SiteTenant, content, 'replaceNotice')).toBe(true);
		const templates = NODES.SiteTenant.description.properties.filter(
			(property) => property.name === 'templates',
		);
		expect(
			templates.map((property) => [property.type, property.default, property.required]),
		).toEqual([['string', '', true]]);
		// Clear All Blocks hides Templates (nothing to type when the page is emptied on purpose).
		expect(displayed(NODES.SiteTenant, { ...content, clearAllBlocks: true }, 'templates')).toBe(
			false,
		);
	});

	test('Custom API Call starts at /api/pages, Split Listing Into Items off', () => {
		const call = { resource: 'customApiCall', operation: 'call' };
		expect(parametersOf(NODES.SiteTenant, call)).toMatchObject({
			path: '/api/pages',
			splitData: false,
		});
	});

	test('Token > Issue: 30 days by default', () => {
		const issue = { resource: 'token', operation: 'issue' };
		expect(parametersOf(NODES.SiteAdmin, issue).expiresIn).toBe(30 * 24 * 3600);
	});

	test('the output of Token > Issue carries a hint that the token is a secret for a credential', () => {
		const hints = NODES.SiteAdmin.description.hints ?? [];
		expect(hints).toEqual([
			expect.objectContaining({
				location: 'outputPane',
				displayCondition: '={{ $parameter["resource"] === "token" }}',
				message: expect.stringMatching(/secret.*"Site Management Tenant API" credential/),
			}),
		]);
	});

	// Version 1's Tenant > Create has the parameter too; version 2 takes its ID in Fields.
	test.each([
		['tenant', 'create', 1],
		['tenant', 'createOrUpdate', 2],
		['tenant', 'update', 2],
		['tenant', 'delete', 2],
		['token', 'issue', 2],
	])(
		'a Tenant ID typed before switching to %s > %s stays (version %s)',
		(resource, operation, version) => {
			const typed = {
				...parametersOf(NODES.SiteAdmin, { resource: 'tenant', operation: 'delete' }, version),
				id: 'acme',
			};
			const switched = parametersOf(NODES.SiteAdmin, { ...typed, resource, operation }, version);
			expect(switched.id).toBe('acme');
			expect(displayed(NODES.SiteAdmin, switched, 'id', version)).toBe(true);
		},
	);

	test('the action nodes are at version 2 (fields through the resource mapper); the triggers at 1', () => {
		for (const node of [NODES.SiteAdmin, NODES.SiteTenant]) {
			expect(node.description.version).toEqual([1, 2]);
			expect(newestVersion(node)).toBe(2);
			// n8n adds its Custom API Call only where defaultVersion is unset or equals version.
			expect(node.description.defaultVersion).toBeUndefined();
		}
		for (const node of [NODES.SiteContactFormTrigger, NODES.SitePageTrigger])
			expect(node.description.version).toBe(1);
	});

	test.each([
		[NODES.SiteTenant, { resource: 'page', operation: 'create' }, ['name', 'url', 'locale']],
		[NODES.SiteTenant, { resource: 'variable', operation: 'set' }, ['key', 'value']],
		[NODES.SiteAdmin, { resource: 'tenant', operation: 'create' }, ['id', 'fqdn']],
	])(
		'%#: version 1 keeps one parameter per field, version 2 shows Fields',
		(node, values, fields) => {
			for (const name of fields) {
				expect({ name, v1: displayed(node, values, name, 1) }).toEqual({ name, v1: true });
				expect({ name, v2: displayed(node, values, name, 2) }).toEqual({ name, v2: false });
			}
			expect(displayed(node, values, 'columns', 1)).toBe(false);
			expect(displayed(node, values, 'columns', 2)).toBe(true);
			// The mapper starts at Map Each Column Manually, as n8n's own.
			expect(parametersOf(node, values, 2).columns).toMatchObject({ mappingMode: 'defineBelow' });
			expect(displayed(node, values, 'unknownFields', 1)).toBe(false);
			const autoMap = { ...values, columns: { mappingMode: 'autoMapInputData', value: null } };
			expect(parametersOf(node, autoMap, 2).unknownFields).toBe('ignore');
		},
	);
});

test('the Contact Form Secret credential cannot be created with a secret under 16 characters', () => {
	// n8n refuses to create a credential while a required property it displays is empty
	// (CredentialsService.validateCredentialData): the notice is displayed for a short secret only.
	const credential = new SiteContactFormSecretApi();
	const blockers = (secret: string) =>
		credential.properties.filter(
			(property) =>
				property.required &&
				property.displayOptions !== undefined &&
				NodeHelpers.displayParameter({ headerName: 'X-Secret', secret }, property, null, null),
		);
	for (const secret of ['', 'short', 'x'.repeat(15), 'a b c d e f g h']) {
		expect(blockers(secret).map((property) => property.name)).toEqual(['atLeast16Characters']);
	}
	for (const secret of ['x'.repeat(16), 'f'.repeat(64)]) expect(blockers(secret)).toEqual([]);
});
