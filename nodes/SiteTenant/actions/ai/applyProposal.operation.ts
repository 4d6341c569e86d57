/**
 * AI > Apply Proposal: takes a proposal `{url, templates, banner?}` in any accepted shape, validates
 * it and applies it with `PUT /api/content`, to the workflow's page and only at the page version the
 * site gave (proposalGuard.ts): a page changed since fails the item, nothing written
 * (helpers/contentIfUnchanged.ts). Dry Run reads the page and shows what would change
 * instead of sending the update. A malformed proposal fails the item and nothing is sent.
 * It reads the output field of n8n's AI nodes by default, and its dry run passes the input on.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { objectOr } from '../../../shared/json';
import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { pageParameter, readPageUrl } from '../page/locator';
import { dryRunItem } from '../../helpers/dryRun';
import { readPageByUrl } from '../../../shared/pages';
import { contentChanges } from './diff';
import { AI_OUTPUT_FIELD, readProposal } from './readProposal';
import { isToolForm } from '../../../shared/toolForm';
import { jsonTextField } from '../../../shared/jsonText';
import { putContentIfUnchanged } from '../../helpers/contentIfUnchanged';
import { guardedVersion } from './proposalGuard';

const properties: INodeProperties[] = [
	{
		displayName: 'Proposal Source',
		name: 'proposalSource',
		type: 'options',
		options: [
			{
				name: 'Field',
				value: 'field',
				description:
					'Read the proposal from a field of the input item (e.g. the output of an AI node)',
			},
			{
				name: 'JSON Parameter',
				value: 'json',
				description: 'Give the proposal (or an expression producing it) as a parameter',
			},
		],
		default: 'field',
		description: 'Where the proposal comes from',
	},
	{
		displayName: 'Proposal Field',
		name: 'proposalField',
		type: 'string',
		default: AI_OUTPUT_FIELD,
		placeholder: 'text',
		displayOptions: {
			show: {
				proposalSource: ['field'],
			},
		},
		description:
			"Name of the input field holding the proposal. The default picks the field n8n's AI nodes answer in: text (Basic LLM Chain), output (AI Agent, OpenAI node), message.content (OpenAI node v1) or choices[0].message.content (a raw chat completion). Dot paths work; an empty value uses the whole input item. The value may be the proposal object, a JSON string or JSON in a fenced code block.",
	},
	{
		displayName: 'Proposal JSON',
		name: 'proposalJson',
		...jsonTextField(4),
		default: '',
		placeholder:
			'{"url": "/about-us", "templates": [{"type": "text", "body": "..."}], "banner": null}',
		displayOptions: {
			show: {
				proposalSource: ['json'],
			},
		},
		description:
			'The proposal (the page path, its templates and optionally a banner, as AI > Get Page Context asks for), or text/model output containing it',
	},
	pageParameter({
		required: false,
		description:
			"The page the proposal must be for: a proposal without a URL is applied to this page, a proposal for another page fails the item. Empty: the page Get Page Context read, as its version in the proposal says (a proposal's own URL alone is never enough).",
	}),
	{
		displayName: 'Page Version',
		name: 'pageVersion',
		type: 'string',
		default: '',
		placeholder: "={{ $('Get Page Context').item.json.version }}",
		description:
			'The version of the page the proposal was made from: the version AI > Get Page Context output. Empty: the version in the proposal, if it is Get Page Context\'s (its prompt asks the model to give it back unchanged; one the model made up does not count). The proposal is applied only if the page still has this version; otherwise the item fails with "the page changed since the proposal was made" and nothing is written.',
	},
	{
		displayName: 'Require Page Version',
		name: 'requireVersion',
		type: 'boolean',
		default: true,
		description:
			"Whether a proposal without a page version from the site (Page Version, or Get Page Context's version in the proposal) fails the item. Turn off only for a workflow that truly has no version: the page is then written whatever changed since.",
	},
	{
		displayName: 'Dry Run',
		name: 'dryRun',
		type: 'boolean',
		default: false,
		description:
			'Whether to only read the page and show what would change without updating it. The input item is passed through with the changes under "dryRun", so an Apply Proposal after it reads the same proposal.',
	},
];

const displayOptions = {
	show: {
		resource: ['ai'],
		operation: ['applyProposal'],
	},
};

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const urlOverride = readPageUrl(this, itemIndex, true);
	const dryRun = target.dryRun;
	const parsed = readProposal(this, itemIndex, urlOverride);
	const { proposal, ignoredKeys } = parsed;
	const extra: IDataObject = ignoredKeys.length > 0 ? { ignoredFields: ignoredKeys } : {};
	const version = guardedVersion(
		this,
		itemIndex,
		target,
		{ url: proposal.url, version: parsed.version },
		urlOverride !== '',
	);

	if (dryRun) {
		const page = await readPageByUrl.call(this, proposal.url, { itemIndex, target });
		const preview: IDataObject = {
			url: proposal.url,
			changes: contentChanges(page, proposal),
			wouldSend: proposal as unknown as IDataObject,
			// Whether the apply would find the page as the proposal knew it (null: no version to check).
			version:
				version === undefined
					? null
					: {
							proposal: version,
							page: page.updated_at ?? null,
							unchanged: page.updated_at === version,
						},
			...extra,
		};
		// The input goes on (the model's answer included), so an Apply after the review reads it as is.
		return dryRunItem(this, itemIndex, preview);
	}

	const body = proposal as unknown as IDataObject;
	const response =
		version === undefined
			? await siteRequest.call(
					this,
					{ method: 'PUT', path: '/api/content', body },
					{ itemIndex, target },
				)
			: await putContentIfUnchanged.call(this, body, version, { itemIndex, target });
	const answer = objectOr(response, {
		url: proposal.url,
		response: (response ?? null) as IDataObject,
	});
	if (isToolForm(this.getNode())) {
		// A model needs to know it worked, not the page it just wrote.
		const page = (answer.page ?? {}) as IDataObject;
		return {
			message: answer.message ?? 'Content updated.',
			url: proposal.url,
			updated_at: page.updated_at ?? null,
			...extra,
		};
	}
	// The updated page (plus ignoredFields).
	return { ...objectOr(answer.page, answer), ...extra };
}
