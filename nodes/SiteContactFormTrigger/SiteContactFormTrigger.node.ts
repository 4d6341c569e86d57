import type {
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IDataObject,
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
import type { Registration } from './registration';
import {
	deliveryRegistrations,
	register,
	registrationExists,
	secretHashOf,
	unregister,
} from './registration';
import type { SiteClaim } from './repeats';
import { claimSubmission } from './repeats';
import {
	AUTOMATIC_SECRET_HEADER,
	DEFAULT_MANUAL_SECRET_HEADER,
	matchingHashIndex,
	secretCredentialProblems,
	secretMatches,
	visibleHeaders,
} from './secret';
import {
	isJsonContentType,
	requestJsonObject,
	submissionIdentity,
	submissionItem,
} from './submission';
import { tenantsServedProperties } from './served';
import { deliveryTenantProblem } from './tenant';
import { TENANT_ID_PATTERN } from '../shared/tenantScope';

/** The Registration parameter (registration.ts's Registration is the record of one). */
type RegistrationMode = 'automatic' | 'manual';

/** Answers the request itself and starts nothing. */
function reject(
	ctx: IWebhookFunctions,
	status: number,
	error: string,
	message: string,
	retryAfterSeconds?: number,
): IWebhookResponseData {
	ctx.logger.debug(`Site Management Contact Form Trigger rejected a request: ${status} ${error}`);
	const response = ctx.getResponseObject();
	if (retryAfterSeconds !== undefined) response.setHeader('Retry-After', String(retryAfterSeconds));
	response.status(status).json({ error, message });
	return { noWebhookResponse: true };
}

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
		const registration = this.getNodeParameter('registration', 'automatic') as RegistrationMode;
		const headers = this.getHeaderData() as IDataObject;
		let headerName = AUTOMATIC_SECRET_HEADER;
		let authentic: boolean;
		let tenants: Set<string>;
		// Automatic registration: the registration whose secret the delivery carries.
		let registered: Registration | undefined;
		if (registration === 'manual') {
			const credentials = await this.getCredentials('siteContactFormSecretApi');
			headerName = manualHeaderName(credentials);
			const problems = manualCredentialProblems(credentials);
			if (problems.length > 0) {
				// Changed after activation: refuse (the site retries a 5xx) rather than accept a weak secret.
				return reject(
					this,
					500,
					'misconfigured',
					`The trigger's secret credential is not usable: ${problems.join(' ')}`,
				);
			}
			authentic = secretMatches(headers[headerName.toLowerCase()], String(credentials.secret));
			tenants = new Set([manualTenant(credentials)]);
		} else {
			const accepted = deliveryRegistrations(this);
			if (accepted.length === 0) {
				// The site learns the URL and secret in create(); n8n stores them a moment later.
				// A delivery in between is asked to come back, not refused for good as a 401 would be.
				return reject(
					this,
					503,
					'not_ready',
					'The trigger is still being set up; deliver again in a moment.',
					1,
				);
			}
			// Each tenant has its own secret: the one the delivery carries tells which tenant it may name.
			const index = matchingHashIndex(
				headers[AUTOMATIC_SECRET_HEADER.toLowerCase()],
				accepted.map(secretHashOf),
			);
			registered = accepted[index];
			authentic = registered !== undefined;
			const tenantId = registered?.tenantId;
			tenants = new Set(typeof tenantId === 'string' && tenantId !== '' ? [tenantId] : []);
		}
		if (!authentic) {
			return reject(this, 401, 'unauthorized', 'The webhook secret is missing or wrong.');
		}

		const body = requestJsonObject(this.getRequestObject());
		if (!isJsonContentType(headers['content-type']) || body === undefined) {
			return reject(
				this,
				400,
				'invalid_json',
				'The body must be a JSON object sent as application/json.',
			);
		}
		const identity = submissionIdentity(body);
		if (identity.kind === 'invalid') {
			return reject(this, 400, 'validation_failed', `${identity.problem}.`);
		}
		if (tenants.size === 0) {
			// Registered by an earlier version, which recorded no tenant: the site delivers again
			// once the workflow is activated anew (that registers afresh).
			return reject(
				this,
				503,
				'unavailable',
				'The webhook does not know its tenant yet; deliver it again later.',
			);
		}
		const tenantProblem = deliveryTenantProblem(body, tenants);
		if (tenantProblem) {
			return reject(
				this,
				tenantProblem.status,
				tenantProblem.status === 403 ? 'forbidden' : 'validation_failed',
				tenantProblem.message,
			);
		}

		// A test run takes no claim: with automatic registration it gets a copy of a submission that the
		// published workflow receives too, and a claim would make that delivery look like a repeat.
		const isTestRun = this.getMode() === 'manual';
		if (
			identity.kind === 'id' &&
			!isTestRun &&
			(this.getNodeParameter('ignoreRepeats', true) as boolean)
		) {
			let isNew: boolean;
			try {
				isNew = await claimSubmission(
					this,
					identity.key,
					registered ? siteClaimOf(registered, headers) : undefined,
				);
			} catch (error) {
				// Not knowing whether it is a repeat, start nothing: the site delivers again later.
				this.logger.warn(
					'Site Management Contact Form Trigger could not claim a submission on the site',
					{
						error: (error as Error).message,
					},
				);
				return reject(
					this,
					503,
					'unavailable',
					'Could not check the submission with the site; deliver it again later.',
				);
			}
			if (!isNew) {
				return {
					webhookResponse: { message: 'Submission already received', submission_id: identity.id },
				};
			}
		}

		const options = this.getNodeParameter('options', {}) as IDataObject;
		const item = submissionItem(body, {
			liftFields: options.liftFields === true,
			headers: options.includeHeaders === true ? visibleHeaders(headers, headerName) : undefined,
		});
		return { workflowData: [this.helpers.returnJsonArray([item])] };
	}
}

/**
 * How an automatic registration's delivery is claimed: at the tenant base URL it registered through,
 * for its tenant (the delivery named it: checked before), with the secret the delivery carried (no
 * credential read per delivery).
 */
function siteClaimOf(registration: Registration, headers: IDataObject): SiteClaim | undefined {
	const { siteUrl, tenantId } = registration;
	const secret = headers[AUTOMATIC_SECRET_HEADER.toLowerCase()];
	if (!siteUrl || typeof secret !== 'string' || typeof tenantId !== 'string' || !tenantId) {
		return undefined;
	}
	return { siteUrl, tenantId, secret };
}

/** The credential's header name; empty means the default. */
function manualHeaderName(credentials: IDataObject): string {
	return String(credentials.headerName ?? '').trim() || DEFAULT_MANUAL_SECRET_HEADER;
}

const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

/** The tenant a manual registration takes submissions of: the secret credential's Tenant ID. */
function manualTenant(credentials: IDataObject): string {
	return String(credentials.tenantId ?? '').trim();
}

/** What is wrong with the secret credential's Tenant ID, if anything. */
function manualTenantProblems(credentials: IDataObject): string[] {
	const tenantId = manualTenant(credentials);
	if (TENANT_ID.test(tenantId)) return [];
	return [
		tenantId === ''
			? 'Its Tenant ID is empty: name the tenant whose site sends here.'
			: `Its Tenant ID "${tenantId.slice(0, 80)}" is not a tenant ID.`,
	];
}

/** What makes the secret credential unusable: its header name, its secret, its Tenant ID. */
function manualCredentialProblems(credentials: IDataObject): string[] {
	return [
		...secretCredentialProblems(manualHeaderName(credentials), credentials.secret),
		...manualTenantProblems(credentials),
	];
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
