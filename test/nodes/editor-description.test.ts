/**
 * What the editor shows of the nodes before anything runs: Docs links that lead to a README section
 * that exists, three distinct icons (light and dark), and canvas subtitles with the operation's name.
 */
import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import { join } from 'path';

import type { INodeProperties, INodeType } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

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
const PACKAGE_PAGE = 'https://www.npmjs.com/package/n8n-nodes-site-management#';
const NODES = {
	SiteAdmin: new SiteAdmin(),
	SiteTenant: new SiteTenant(),
	SiteContactFormTrigger: new SiteContactFormTrigger(),
	SitePageTrigger: new SitePageTrigger(),
};

/** The anchors GitHub and npm give the README's headings. */
function readmeAnchors(): Set<string> {
	const headings = readFileSync(join(ROOT, 'README.md'), 'utf8').match(/^#{1,6} .+$/gm) ?? [];
	return new Set(
		headings.map((heading) =>
			heading
				.replace(/^#+ /, '')
				.trim()
				.toLowerCase()
				.replace(/[^\p{L}\p{N} _-]/gu, '')
				.replace(/ /g, '-'),
		),
	);
}

test('every Docs link (nodes and credentials) is a section of the README on the package page', () => {
	const anchors = readmeAnchors();
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
	for (const link of links) {
		expect(link.startsWith(PACKAGE_PAGE)).toBe(true);
		expect(anchors).toContain(link.slice(PACKAGE_PAGE.length));
	}
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
			nodes: [{ id: 'n', name: 'Node', type, typeVersion: 3, position: [0, 0], parameters }],
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
