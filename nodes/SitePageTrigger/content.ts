/**
 * Include Content: the page record (fields, templates, banner) of each change, read after the
 * change was seen. A page removed since (or a removal) gets `page: null`.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { isPlainObject } from '../shared/json';
import { unwrapList } from '../shared/transport';
import { runWindow, throwFirstFailure } from '../shared/window';
import { tenantApiRequest } from '../SiteTenant/transport';
import type { PageChange } from './changes';
import type { PollLimits } from './snapshot';

/** Page reads in flight at once. */
const CONCURRENCY = 8;

async function readPage(
	ctx: IPollFunctions,
	url: string,
	limits: PollLimits = {},
): Promise<IDataObject | null> {
	const answer = await tenantApiRequest.call(
		ctx,
		{ method: 'GET', path: '/api/pages', qs: { url, page: 1, per_page: 100 } },
		{ itemIndex: 0, ...limits },
	);
	const pages = isPlainObject(answer) && 'url' in answer ? [answer] : unwrapList(answer);
	return pages.find((page) => page?.url === url) ?? null;
}

export async function withContent(
	this: IPollFunctions,
	changes: PageChange[],
	limits: PollLimits = {},
): Promise<Array<PageChange & { page: IDataObject | null }>> {
	const pages: Array<IDataObject | null> = new Array(changes.length).fill(null);
	throwFirstFailure(
		await runWindow(0, changes.length, CONCURRENCY, async (index) => {
			const { event, url } = changes[index];
			if (event !== 'pageRemoved' && url !== null) pages[index] = await readPage(this, url, limits);
		}),
	);
	return changes.map((change, index) => ({ ...change, page: pages[index] }));
}
