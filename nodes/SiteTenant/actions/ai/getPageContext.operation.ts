/**
 * AI > Get Page Context: reads a page and hands out its fields and content plus `prompt`: the whole
 * prompt (task, page, answer format and its JSON schema), so a chain's prompt is `{{ $json.prompt }}`,
 * and `version` (the page's updated_at, sealed for this page and credential: siteVersion.ts), which
 * the proposal carries back so that AI > Apply Proposal applies it only to that page, unchanged.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { pageParameter, readPageUrl } from '../page/locator';
import { readPageByUrl } from '../../../shared/pages';
import { pageUpdatedAt, renderPrompt } from './promptContext';
import { sealedVersion } from './siteVersion';
import { isToolForm } from '../../../shared/toolForm';

const properties: INodeProperties[] = [
	pageParameter({
		description: 'The page whose context to read: pick it from the list or give its URL',
	}),
	{
		displayName: 'Include Answer Instructions',
		name: 'includeInstructions',
		type: 'boolean',
		default: true,
		description:
			'Whether to end the prompt with a line telling the model to answer with only the JSON object AI > Apply Proposal accepts (page path, templates, banner) with its JSON schema',
	},
];

const displayOptions = {
	show: {
		resource: ['ai'],
		operation: ['getPageContext'],
	},
};

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject> {
	const url = readPageUrl(this, itemIndex);
	const includeInstructions = this.getNodeParameter(
		'includeInstructions',
		itemIndex,
		true,
	) as boolean;
	const page = await readPageByUrl.call(this, url, { itemIndex, target });
	const withInstructions = includeInstructions !== false;
	// For a model, the prompt alone holds the page (fields, blocks, banner) and the answer's schema.
	const pageUrl = typeof page.url === 'string' ? page.url : url;
	const updatedAt = pageUpdatedAt(page);
	const version = updatedAt === null ? null : sealedVersion(target, pageUrl, updatedAt);
	const prompt = renderPrompt(page, withInstructions, version);
	if (isToolForm(this.getNode())) return { url: pageUrl, version, prompt };

	return {
		url: pageUrl,
		name: page.name ?? null,
		locale: page.locale ?? null,
		meta_title: page.meta_title ?? null,
		meta_description: page.meta_description ?? null,
		draft: page.draft ?? null,
		templates: Array.isArray(page.templates) ? page.templates : [],
		banner: page.banner ?? null,
		updated_at: page.updated_at ?? null,
		version,
		prompt,
	};
}
