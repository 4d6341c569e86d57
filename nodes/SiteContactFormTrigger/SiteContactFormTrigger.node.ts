import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHookFunctions,
	INodeCredentialTestResult,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { acknowledgeOption, acknowledgeResponseMode } from './acknowledge';
import {
	MANAGED_TENANT,
	TENANT_TOKEN,
	tenantAuthenticationProperty,
} from '../shared/authentication';
import { receiveDelivery } from './delivery';
import { manualCredentialProblems, manualTenantProblems } from './manualSecret';
import { register, registrationExists, unregister } from './registration';
import { secretCredentialProblems } from './secret';
import { tenantsServedProperties } from './served';

/** The Registration parameter (registration.ts's Registration is the record of one). */
type RegistrationMode = 'automatic' | 'manual';

export class SiteContactFormTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Site Management Contact Form Trigger',
		name: 'siteContactFormTrigger',
		icon: { light: 'file:site.svg', dark: 'file:site.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle:
			'={{$parameter["registration"] === "manual" ? "Manual registration" : "Automatic registration"}}',
		description:
			'Starts the workflow when a visitor sends the contact form of a Site Management website',
		defaults: {
			name: 'Site Management Contact Form Trigger',
		},
		// For n8n's AI workflow builder (2.x; 1.x ignores it).
		builderHint: {
			searchHint:
				"Starts a workflow when a visitor sends a Site Management website's contact form: on publishing it registers its own URL and a secret with each site it serves, and takes them off when unpublished. One item per submission with tenant_id, form, fields and submitted_at.",
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-site-management.siteTenant',
					relationHint: "Answers on the site, e.g. Notification > Send to the site's owner",
				},
			],
		},
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Written out: n8n's scanner reads this array literally (a spread element crashes its
		// credentials-name rule, and it looks here for the secret's testedBy).
		credentials: [
			{
				name: 'siteTenantApi',
				required: true,
				displayOptions: { show: { registration: ['automatic'], authentication: [TENANT_TOKEN] } },
			},
			{
				name: 'siteManagedTenantApi',
				required: true,
				displayOptions: { show: { registration: ['automatic'], authentication: [MANAGED_TENANT] } },
			},
			{
				name: 'siteContactFormSecretApi',
				required: true,
				displayOptions: { show: { registration: ['manual'] } },
				testedBy: 'siteContactFormSecretTest',
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				// The site needs a 2xx, nothing more: an empty one. (Left out, n8n sends its default,
				// the literal text "firstEntryJson".) Repeats get the node's small JSON acknowledgement.
				responseData: 'noData',
				// n8n puts the node's random webhook id in front (isFullPath false); an empty Path falls
				// back to the node's own random id, so neither part of the URL can be guessed. (An
				// expression n8n evaluates per request: no parameter holds the node's id.)
				path: '={{$parameter["path"] || $nodeId || "contact-form"}}',
				isFullPath: false,
				// On receipt (default) or when the workflow has finished: the Acknowledge Delivery option.
				responseMode: acknowledgeResponseMode,
			},
		],
		properties: [
			{
				displayName: 'Registration',
				name: 'registration',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Automatic',
						value: 'automatic',
						description:
							"On activation the node sets the site's contact-form webhook URL to its own URL with a fresh secret, and clears it on deactivation",
					},
					{
						name: 'Manual',
						value: 'manual',
						description:
							"You paste the URL and a secret header into the site's settings yourself; the node makes no API calls",
					},
				],
				default: 'automatic',
			},
			// No displayOptions here: n8n's editor hides every parameter that the Authentication field's
			// displayOptions name (the credential chooser takes its place), which hid Registration and
			// with it manual registration. The tenant credentials are still only shown (and only read)
			// for automatic registration.
			tenantAuthenticationProperty(),
			...tenantsServedProperties,
			{
				displayName:
					'Publishing the workflow registers the Production URL with each site it serves, each with its own secret: the tenant the credential names, or with a Managed Tenant credential the Tenants chosen. Each item carries the tenant_id of the site that sent it. If a site cannot be registered, publishing fails and names it. Testing the trigger ("Execute step" here, or "Test this trigger") sends the test run a copy of the next submission of any of its sites; the published workflow still receives every submission, that one included.',
				name: 'automaticNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { registration: ['automatic'] } },
			},
			{
				displayName:
					'Register this node with the site yourself, once, with a Site Management Tenant node: Setting > Update, and under Update Fields set Contact Form Webhook URL to the Production URL above and add one Contact Form Webhook Headers entry: Name = the Header Name of this node\'s Contact Form Secret credential, Value = its Secret. To test ("Execute step" or "Test this trigger") put the Test URL there instead: until you put the Production URL back, live submissions go to the test run, not to the published workflow.',
				name: 'manualNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { registration: ['manual'] } },
			},
			{
				displayName: 'Path',
				name: 'path',
				type: 'string',
				default: '',
				placeholder: "Empty: a random path (this node's ID)",
				description:
					"Last part of the webhook URL, after the node's random webhook ID. Leave empty for a random value; set your own to get a readable URL. Either way the URL keeps the random webhook ID.",
			},
			{
				displayName: 'Ignore Repeated Submissions',
				name: 'ignoreRepeats',
				type: 'boolean',
				default: true,
				description:
					'Whether a submission delivered again (same submission_id) is acknowledged without starting the workflow. The site delivers at least once, so repeats can happen. Automatic registration claims each submission on the site, which holds across n8n processes and restarts; manual registration remembers the last 1,000 per n8n process only (best effort). Test runs check nothing.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					acknowledgeOption,
					{
						displayName: 'Include Request Headers',
						name: 'includeHeaders',
						type: 'boolean',
						default: false,
						description:
							'Whether to add the request headers under "headers". The secret header, Authorization and Cookie are never included.',
					},
					{
						displayName: 'Lift Fields to Top Level',
						name: 'liftFields',
						type: 'boolean',
						default: false,
						description:
							'Whether to output the form fields at the top level beside submission_id, tenant_id, form and submitted_at instead of under "fields"',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: {
			async siteContactFormSecretTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = credential.data ?? {};
				const problems = [
					...secretCredentialProblems(data.headerName, data.secret),
					...manualTenantProblems(data),
				];
				if (problems.length > 0) return { status: 'Error', message: problems.join(' ') };
				return { status: 'OK', message: 'Tenant ID, header name and secret are usable' };
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const registration = this.getNodeParameter('registration', 'automatic') as RegistrationMode;
				if (registration === 'manual') {
					// The user registered the URL in the site's settings; nothing to create, but a weak
					// secret stops the activation here rather than opening the URL to guessing.
					await assertUsableSecretCredential(this);
					return true;
				}
				return await registrationExists(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const registration = this.getNodeParameter('registration', 'automatic') as RegistrationMode;
				if (registration === 'manual') return true;
				await register(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const registration = this.getNodeParameter('registration', 'automatic') as RegistrationMode;
				if (registration === 'manual') return true;
				await unregister(this);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}

/** Throws when the manual registration's credential is unusable (e.g. a short secret, no tenant). */
async function assertUsableSecretCredential(ctx: IHookFunctions): Promise<void> {
	const credentials = await ctx.getCredentials('siteContactFormSecretApi');
	const problems = manualCredentialProblems(credentials);
	if (problems.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The contact-form secret credential is not usable: ${problems.join(' ')}`,
			{
				description:
					'Edit the credential (Tenant ID, header name and a secret of at least 16 characters), then activate the workflow again.',
			},
		);
	}
}
