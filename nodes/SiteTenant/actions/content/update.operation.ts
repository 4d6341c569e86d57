/**
 * Content > Update: `PUT /api/content` with `{url, templates, banner?}`. Templates and banner are
 * checked before anything is sent: templates a JSON array of objects (not an empty one unless Clear
 * All Blocks is on), banner a JSON object or null. Only If Unchanged Since makes it conditional on the
 * page's updated_at (helpers/contentIfUnchanged.ts). Outputs the updated page.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { RequestTarget } from '../../../shared/transport';
import { siteRequest } from '../../../shared/transport';
import { recordIn } from '../../../shared/json';
import { pageParameter, readPageUrl } from '../page/locator';
import { readBannerChange } from './readBannerChange';
import { readTemplates } from './readTemplates';
import { contentChanges } from '../ai/diff';
import type { Proposal } from '../ai/proposal';
import { dryRunItem, dryRunProperty, withResult } from '../../helpers/dryRun';
import { readPageByUrl } from '../../../shared/pages';
import { jsonTextField } from '../../../shared/jsonText';
import { putContentIfUnchanged } from '../../helpers/contentIfUnchanged';

const TEMPLATES_EXAMPLE =
	'[{"type": "heading", "text": "About us"}, {"type": "text", "body": "We are a small team."}]';

const TEMPLATES_HELP = `The page's content blocks, in order: a JSON array of objects, e.g. ${TEMPLATES_EXAMPLE}. The service takes blocks of any type and stores them as given; the demo site uses hero {title, text}, heading {text}, text {body} and contact-form {fields}. A type the site does not know is stored and returned unchanged, and the site decides whether it shows it.`;

const properties: INodeProperties[] = [
	pageParameter({
		description: 'The page whose content is replaced: pick it from the list or give its URL',
	}),
	{
		displayName:
			'Replaces every content block of the page with Templates: nothing is merged. An empty list is refused; to empty the page, turn on Clear All Blocks.',
		name: 'replaceNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Templates',
		name: 'templates',
		...jsonTextField(6),
		default: '',
		required: true,
		placeholder: TEMPLATES_EXAMPLE,
		description: TEMPLATES_HELP,
		displayOptions: { show: { clearAllBlocks: [false] } },
	},
	{
		displayName: 'Clear All Blocks',
		name: 'clearAllBlocks',
		type: 'boolean',
		default: false,
		description:
			'Whether to remove every content block of the page (sends an empty list; Templates is not used)',
	},
	{
		displayName: 'Clear Banner',
		name: 'clearBanner',
		type: 'boolean',
		default: false,
		description: "Whether to remove the page's banner (sends banner: null)",
	},
	{
		displayName: 'Banner',
		name: 'banner',
		...jsonTextField(3),
		default: '',
		placeholder: '{"image": "https://…/hero.jpg", "title": "Welcome"}',
		displayOptions: { show: { clearBanner: [false] } },
		description:
			'The page\'s banner as a JSON object, e.g. {"image": "https://…/hero.jpg", "title": "Welcome"}. Leave empty to keep the current banner; the word null removes it.',
	},
	{
		displayName: 'Only If Unchanged Since',
		name: 'ifUpdatedAt',
		type: 'string',
		default: '',
		placeholder: '={{ $json.updated_at }}',
		description:
			'Optional. The page\'s updated_at as you read it (Page > Get, AI > Get Page Context): the content is replaced only if the page still has it; otherwise the item fails with "the page changed since it was read" and nothing is written. Empty: no check.',
	},
	dryRunProperty('the page'),
];

export const description = updateDisplayOptions(
	{ show: { resource: ['content'], operation: ['update'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	target: RequestTarget,
): Promise<IDataObject | INodeExecutionData[]> {
	const url = readPageUrl(this, itemIndex);
	const templates = readTemplates(this, itemIndex);
	const bannerChange = readBannerChange(this, itemIndex);

	const body: IDataObject = { url, templates };
	if (bannerChange.send) body.banner = bannerChange.banner;

	if (target.dryRun) {
		const page = await readPageByUrl.call(this, url, { itemIndex, target });
		const changes = contentChanges(page, body as unknown as Proposal);
		return dryRunItem(this, itemIndex, { ...withResult(changes), url, wouldSend: body });
	}

	const ifUpdatedAt = String(this.getNodeParameter('ifUpdatedAt', itemIndex, '') ?? '').trim();
	const response =
		ifUpdatedAt === ''
			? await siteRequest.call(
					this,
					{ method: 'PUT', path: '/api/content', body },
					{ itemIndex, target },
				)
			: await putContentIfUnchanged.call(
					this,
					body,
					ifUpdatedAt,
					{ itemIndex, target },
					'it was read',
				);
	return recordIn(response, 'page');
}
