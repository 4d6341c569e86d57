/**
 * Setting > Update: `POST /api/settings` with only the fields given (the others keep their value).
 * At least one field is required, so an empty call never reaches the service. The settings are read
 * first, where the service can (readSettings.ts): the output's `previous` holds the values of the
 * fields it changed, so a workflow can put them back; Dry Run shows the changes and sends nothing.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { recordIn } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import {
	differs,
	dryRunItem,
	dryRunProperty,
	fieldChanges,
	withResult,
} from '../../helpers/dryRun';
import {
	assertUnchanged,
	onlyIfUnchanged,
	onlyIfUnchangedProperties,
} from '../../helpers/onlyIfUnchanged';
import { readSettings } from './readSettings';

const properties: INodeProperties[] = [
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		options: [
			{
				displayName: 'Analytics Code',
				name: 'googleCode',
				type: 'string',
				default: '',
				placeholder: 'G-XXXXXXXXXX',
				description: 'Google Analytics code of the site (google_code)',
			},
			{
				displayName: 'Contact Form Webhook Headers',
				name: 'contactFormWebhookHeaders',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Header',
				default: {},
				description:
					'Extra headers sent with every contact-form submission, e.g. a shared secret the receiving webhook checks. Replaces all current headers.',
				options: [
					{
						displayName: 'Header',
						name: 'header',
						values: [
							{
								displayName: 'Name',
								name: 'name',
								type: 'string',
								default: '',
								placeholder: 'X-Form-Secret',
							},
							{
								displayName: 'Value',
								name: 'value',
								type: 'string',
								typeOptions: { password: true },
								default: '',
							},
						],
					},
				],
			},
			{
				displayName: 'Contact Form Webhook URL',
				name: 'contactFormWebhookUrl',
				type: 'string',
				default: '',
				placeholder: 'https://n8n.example.com/webhook/contact',
				description:
					'Where the service posts each contact-form submission (for example the URL of an n8n Webhook or Site Management Contact Form Trigger node). Empty clears it.',
			},
			{
				displayName: 'Noindex',
				name: 'noindex',
				type: 'boolean',
				default: false,
				description:
					'Whether search engines are asked not to index the site (sent as noindex 1 or 0)',
			},
			{
				displayName: 'Statistics Iframe',
				name: 'statisticsIframe',
				type: 'string',
				default: '',
				description: 'HTML iframe snippet of the statistics dashboard (statistics_iframe)',
			},
		],
	},
	dryRunProperty('the settings'),
	...onlyIfUnchangedProperties('settings have'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['settings'], operation: ['update'] } },
	properties,
);

function headersObject(collection: unknown): IDataObject {
	const entries = ((collection as IDataObject | undefined)?.header ?? []) as IDataObject[];
	const headers: IDataObject = {};
	for (const entry of entries) {
		const name = String(entry.name ?? '').trim();
		if (name) headers[name] = String(entry.value ?? '');
	}
	return headers;
}

/** The values `current` had for the fields that `body` changed. */
function previousValues(current: IDataObject, body: IDataObject): IDataObject {
	const previous: IDataObject = {};
	for (const [field, value] of Object.entries(body))
		if (differs(current[field] ?? null, value)) previous[field] = current[field] ?? null;
	return previous;
}

/** The error of what needs the settings read first (`by`) on a service that cannot read them. */
function unreadable(
	ctx: IExecuteFunctions,
	itemIndex: number,
	by: string,
	status: unknown,
	nothing: 'sent' | 'written',
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `${by} cannot read this site's settings`, {
		itemIndex,
		description: `Reading settings (GET /api/settings) is an extension of the reference server; the service answered ${String(status)}. Nothing was ${nothing}.`,
	});
}

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	if (fields.googleCode !== undefined) body.google_code = fields.googleCode;
	if (fields.noindex !== undefined) body.noindex = fields.noindex === true ? 1 : 0;
	if (fields.statisticsIframe !== undefined) body.statistics_iframe = fields.statisticsIframe;
	if (fields.contactFormWebhookUrl !== undefined)
		body.contact_form_webhook_url = fields.contactFormWebhookUrl;
	if (fields.contactFormWebhookHeaders !== undefined) {
		body.contact_form_webhook_headers = headersObject(fields.contactFormWebhookHeaders);
	}

	if (Object.keys(body).length === 0) {
		throw new NodeOperationError(this.getNode(), 'Add at least one setting to update', {
			itemIndex,
			description: 'Choose a setting under "Update Fields"; settings not given keep their value.',
		});
	}

	const current = await readSettings(this, { itemIndex, target });
	if (target.dryRun) {
		if ('unreadable' in current)
			throw unreadable(this, itemIndex, 'Dry Run', current.unreadable, 'sent');
		return dryRunItem(this, itemIndex, withResult(fieldChanges(current, body)));
	}
	if (onlyIfUnchanged(this, itemIndex)) {
		if ('unreadable' in current)
			throw unreadable(this, itemIndex, 'Only If Unchanged', current.unreadable, 'written');
		assertUnchanged(this, itemIndex, current, Object.keys(body), 'the settings');
	}

	const response = await siteRequest.call(
		this,
		{ method: 'POST', path: '/api/settings', body },
		{ itemIndex, target },
	);
	const settings = recordIn(response, 'settings');
	if ('unreadable' in current) return settings;
	return { ...settings, previous: previousValues(current, body) };
}
