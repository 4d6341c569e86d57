import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import {
	MANAGED_TENANT,
	TENANT_TOKEN,
	tenantAuthenticationProperty,
} from '../shared/authentication';
import { requestOptionsDescription } from '../shared/options';
import { executeOperations } from '../shared/router';
import { resolveTenantTarget } from '../shared/target';
import { operationLabels } from '../shared/operationLabel';
import { operationSubtitle } from '../shared/subtitle';
import { destructiveToolNotice } from '../shared/toolForm';
import * as ai from './actions/ai';
import * as asset from './actions/asset';
import * as content from './actions/content';
import * as customApiCall from './actions/customApiCall';
import * as notification from './actions/notification';
import { APPROVAL_WEBHOOKS, approvalWebhook } from './actions/notification/approvalWebhook';
import * as page from './actions/page';
import * as settings from './actions/settings';
import * as sitemap from './actions/sitemap';
import * as variable from './actions/variable';
import { tenantProperty } from './helpers/tenant';
import { listSearch, resourceMapping } from './methods';
import { toolDescriptionProperties } from './toolDescriptions';

const properties: INodeProperties[] = [
	tenantAuthenticationProperty(),
	tenantProperty,
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'AI',
				value: 'ai',
				description: 'Hand a page to an AI step and apply the content it proposes',
			},
			{
				name: 'API Call',
				value: 'customApiCall',
				description:
					"Any endpoint under /api/, e.g. the chatbot, with this node's retries and Idempotency-Key (n8n's own Custom API Call opens the HTTP Request node instead)",
			},
			{
				name: 'Asset',
				value: 'asset',
				description: 'A media file stored by the service, served at a public URL',
			},
			{
				name: 'Content',
				value: 'content',
				description: 'The content blocks (templates) and banner of a page',
			},
			{
				name: 'Notification',
				value: 'notification',
				description: 'A status message shown in the site editor',
			},
			{
				name: 'Page',
				value: 'page',
				description: 'A page of the site, identified by its URL',
			},
			{
				name: 'Setting',
				value: 'settings',
				description: 'Site settings: analytics, noindex, statistics, contact-form webhook',
			},
			{
				name: 'Sitemap',
				value: 'sitemap',
				description: 'The published pages of the site',
			},
			{
				name: 'Variable',
				value: 'variable',
				description: 'Key/value variables of the site (when enabled for the tenant)',
			},
		],
		default: 'page',
	},
	destructiveToolNotice('page', 'delete', 'delete a page of the site'),
	destructiveToolNotice('variable', 'delete', 'delete a variable of the site'),
	...toolDescriptionProperties,
	...page.description,
	...content.description,
	...asset.description,
	...settings.description,
	...sitemap.description,
	...notification.description,
	...variable.description,
	...ai.description,
	...customApiCall.description,
	requestOptionsDescription,
];

const labels = operationLabels(properties);

export class SiteTenant implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Site Management Tenant',
		name: 'siteTenant',
		icon: { light: 'file:site.svg', dark: 'file:site.dark.svg' },
		group: ['transform'],
		// Version 2 takes the fields of record-making operations through n8n's resource mapper
		// (shared/fieldMapping.ts); version 1 workflows keep one parameter per field. New nodes get the
		// last version. No defaultVersion: n8n adds its Custom API Call only to a node without one (or
		// whose defaultVersion equals its version).
		version: [1, 2],
		subtitle: operationSubtitle(properties),
		description:
			'Work on one website of the Site Management Service: pages, content, assets, settings, sitemap, notifications, variables, AI content proposals and any other endpoint',
		defaults: {
			name: 'Site Management Tenant',
		},
		usableAsTool: true,
		// For n8n's AI workflow builder (2.x; 1.x ignores it).
		builderHint: {
			searchHint:
				"Site Management Service websites: pages, page content, assets, settings, sitemap, notifications, variables. For AI-written content: AI > Get Page Context, a model (Basic LLM Chain), AI > Apply Proposal with Dry Run, Notification > Send and Wait for Approval so the site's owner approves in the site's notifications (or a Wait node), then AI > Apply Proposal, which writes only to the page Get Page Context read and only if it is unchanged since.",
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-base.wait',
					relationHint:
						'A person approves an AI proposal (form or link) before AI > Apply Proposal changes the live site',
				},
				{
					nodeType: '@n8n/n8n-nodes-langchain.chainLlm',
					relationHint:
						"Turns AI > Get Page Context's prompt into a proposal for AI > Apply Proposal",
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// The approval links of Notification > Send and Wait for Approval (approvalWebhook.ts): n8n's
		// waiting webhooks, which register nothing anywhere, so the node has no webhookMethods.
		webhooks: APPROVAL_WEBHOOKS,
		// A literal array, so that n8n's lint rules can read it.
		credentials: [
			{
				name: 'siteTenantApi',
				required: true,
				displayOptions: { show: { authentication: [TENANT_TOKEN] } },
			},
			{
				name: 'siteManagedTenantApi',
				required: true,
				displayOptions: { show: { authentication: [MANAGED_TENANT] } },
			},
		],
		properties,
	};

	methods = { listSearch, resourceMapping };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await approvalWebhook.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (this.getNodeParameter('operation', 0, '') === SEND_AND_WAIT_OPERATION) {
			return await notification.sendAndWaitForApproval.call(this, labels);
		}
		return await executeOperations.call(
			this,
			{
				page: page.handlers,
				content: content.handlers,
				asset: asset.handlers,
				settings: settings.handlers,
				sitemap: sitemap.handlers,
				notification: notification.handlers,
				variable: variable.handlers,
				ai: ai.handlers,
				customApiCall: customApiCall.handlers,
			},
			{
				labels,
				resolveTarget: async (ctx, itemIndex) => await resolveTenantTarget(ctx, itemIndex),
			},
		);
	}
}
