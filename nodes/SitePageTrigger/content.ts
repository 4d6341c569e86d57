/**
 * Include Content: the page record (fields, templates, banner) of each change, read after the
 * change was seen. A page removed since (or a removal) gets `page: null`.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { runWindow, throwFirstFailure } from '../shared/window';
import { pagesAtUrl } from '../shared/pages';
import type { PageChange } from './changes';
import type { PollLimits } from './snapshot';

/** Page reads in flight at once. */
const CONCURRENCY = 8;

async function readPage(
	ctx: IPollFunctions,
	url: string,
	limits: PollLimits,
): Promise<IDataObject | null> {
	const pages = await pagesAtUrl(ctx, url, { itemIndex: 0, ...limits });
	return pages.find((page) => page?.url === url) ?? null;
}

export async function withContent(
	this: IPollFunctions,
	changes: PageChange[],
	limits: PollLimits,
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
