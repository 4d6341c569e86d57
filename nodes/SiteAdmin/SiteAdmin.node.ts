import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { requestOptionsDescription } from '../shared/options';
import { executeOperations } from '../shared/router';
import { resolveRequestTarget } from '../shared/target';
import { operationLabels } from '../shared/operationLabel';
import { operationSubtitle } from '../shared/subtitle';
import { destructiveToolNotice, inToolForm, outsideToolForm } from '../shared/toolForm';
import * as tenant from './actions/tenant';
import * as token from './actions/token';
import { resourceMapping } from './methods';

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Tenant',
				value: 'tenant',
				description: 'A managed website, identified by its tenant ID',
			},
			{
				name: 'Token',
				value: 'token',
				description: "A bearer token that gives access to one tenant's site",
			},
		],
		default: 'tenant',
		displayOptions: { show: outsideToolForm },
	},
	// As an agent's tool the node offers no Token resource: Token > Issue would hand the model a live
	// token (and its provider with it).
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Tenant',
				value: 'tenant',
				description: 'A managed website, identified by its tenant ID',
			},
		],
		default: 'tenant',
		displayOptions: { show: inToolForm },
	},
	destructiveToolNotice('tenant', 'create', 'create a tenant (a website) under the ID it writes'),
	destructiveToolNotice(
		'tenant',
		'createOrUpdate',
		'create a tenant, or change the domain of an existing one (an ID written with spaces around it names the tenant without them)',
	),
	destructiveToolNotice('tenant', 'update', 'rename a tenant or change its domain'),
	destructiveToolNotice('tenant', 'delete', 'delete a tenant with all its pages and data'),
	...tenant.description,
	...token.description,
	requestOptionsDescription,
];

const labels = operationLabels(properties);

export class SiteAdmin implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Site Management Admin',
		name: 'siteAdmin',
		icon: { light: 'file:site.svg', dark: 'file:site.dark.svg' },
		group: ['transform'],
		// Version 2 takes the fields of record-making operations through n8n's resource mapper
		// (shared/fieldMapping.ts); version 1 workflows keep one parameter per field. New nodes get the
		// last version. No defaultVersion: n8n adds its Custom API Call only to a node without one (or
		// whose defaultVersion equals its version).
		version: [1, 2],
		subtitle: operationSubtitle(properties),
		description:
			'Manage tenants (websites) and issue tenant tokens through the Admin API of the Site Management Service',
		defaults: {
			name: 'Site Management Admin',
		},
		usableAsTool: true,
		// For n8n's AI workflow builder (2.x; 1.x ignores it).
		builderHint: {
			searchHint:
				"Site Management Service, central (admin) API: create, rename, list and delete tenants (websites) and issue or revoke a tenant's API token. For work inside one website (pages, content, settings, notifications) use the Site Management Tenant node; to act on many tenants without tokens in workflows use its Managed Tenant credential.",
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-site-management.siteTenant',
					relationHint:
						'Fills a new tenant with pages and content, or updates every tenant listed here',
				},
			],
		},
		// Token > Issue's token, for the n8n versions whose execution view keeps such fields hidden.
		sensitiveOutputFields: ['token'],
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'siteAdminApi',
				required: true,
			},
		],
		properties,
		hints: [
			{
				message:
					'The token in this output is a secret: paste it into a "Site Management Tenant API" credential, and keep it out of the workflow (no pinned data, no Set node, no message).',
				type: 'warning',
				location: 'outputPane',
				whenToDisplay: 'afterExecution',
				displayCondition: '={{ $parameter["resource"] === "token" }}',
			},
		],
	};

	methods = { resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await executeOperations.call(
			this,
			{
				tenant: tenant.handlers,
				token: token.handlers,
			},
			{
				labels,
				resolveTarget: async (ctx, itemIndex) =>
					await resolveRequestTarget(ctx, 'siteAdminApi', itemIndex),
			},
		);
	}
}
