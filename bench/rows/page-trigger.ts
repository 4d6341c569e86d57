/**
 * Site Management Trigger on a large site (100,000 pages; 10,000 with --quick): the time of one poll
 * against a plain fetch of the sitemap it reads, the size of the state it keeps between polls, and
 * the memory a poll takes: the process's peak RSS (getrusage) against its RSS before the first poll.
 * (A heap sampled on a timer misses the peak: parsing the sitemap and building the digest are
 * synchronous, so no timer fires while the most memory is held.)
 */
import type { IDataObject, INodeCredentials } from 'n8n-workflow';

import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import { SitePageTrigger } from '../../nodes/SitePageTrigger/SitePageTrigger.node';
import { PollTriggerWorkflow } from '../../test/harness/poll-trigger';
import { WorkflowRunner } from '../../test/harness/workflow-runner';
import { call, createTenant, expectStatus, log, quick, rows, type Site } from '../lib/context';
import { seedPages } from '../lib/seed';
import { round } from '../lib/stats';

const PAGES = quick ? 10_000 : 100_000;
const MB = 1024 * 1024;

/** Runs `poll`; returns its time and the process's peak RSS (MB) after it. */
async function measured<T>(poll: () => Promise<T>) {
	const started = performance.now();
	const result = await poll();
	const ms = performance.now() - started;
	return { result, ms, peakRssMb: process.resourceUsage().maxRSS / 1024 };
}

async function fetchSitemapMs(site: Site, token: string): Promise<number> {
	const started = performance.now();
	const answer = await expectStatus(200, call(site.url, token, 'POST', '/api/sitemap', {}));
	if (!Array.isArray(answer.json?.pages)) throw new Error('sitemap without pages');
	return performance.now() - started;
}

export async function pageTriggerRows(site: Site) {
	const token = await createTenant(site, 'bench-trigger');
	log(`Site Management Trigger: seeding ${PAGES} pages`);
	await seedPages(site, 'bench-trigger', PAGES);

	const runner = new WorkflowRunner({}, [new SiteTenantApi()]);
	const credentials: INodeCredentials = runner.credentials.add('siteTenantApi', {
		baseUrl: site.url,
		token,
	});
	const workflow = new PollTriggerWorkflow(runner, () => new SitePageTrigger(), {
		type: 'sitePageTrigger',
		parameters: { events: ['pagePublished', 'pageUpdated', 'pageRemoved'] },
		credentials,
	});

	const rssBeforeMb = process.memoryUsage().rss / MB;
	log('Site Management Trigger: first activation');
	const first = await measured(() => workflow.activate());
	if (first.result.error) throw first.result.error;
	const stateBytes = Buffer.byteLength(JSON.stringify(workflow.saved), 'utf8');

	log('Site Management Trigger: a poll without changes, and one with three');
	const idle = await measured(() => workflow.poll());
	if (idle.result.error || idle.result.items !== null) throw new Error('an idle poll emitted');
	await expectStatus(
		201,
		call(site.url, token, 'POST', '/api/page', { name: 'New', url: '/bench-new', locale: 'en' }),
	);
	await expectStatus(
		200,
		call(site.url, token, 'PUT', '/api/content', { url: '/seeded/7', templates: [] }),
	);
	await expectStatus(200, call(site.url, token, 'DELETE', '/api/page', { url: '/seeded/8' }));
	const busy = await measured(() => workflow.poll());
	const events = (busy.result.items ?? []).map(
		(item) => `${String((item.json as IDataObject).event)} ${String(item.json.url)}`,
	);
	const expected = ['pagePublished /bench-new', 'pageRemoved /seeded/8', 'pageUpdated /seeded/7'];
	if (JSON.stringify(events.sort()) !== JSON.stringify(expected))
		throw new Error(`the poll emitted ${JSON.stringify(events)}`);
	const fetchMs = Math.min(await fetchSitemapMs(site, token), await fetchSitemapMs(site, token));

	rows.push({
		id: 'page-trigger-poll',
		row: `Site Management Trigger, one poll of a ${PAGES}-page site (3 changes)`,
		measured: `${round(busy.ms, 0)} ms, state ${round(stateBytes / 1024, 1)} KB`,
		baseline: `fetch + parse of the sitemap ${round(fetchMs, 0)} ms`,
		ratio: round(fetchMs / busy.ms, 2),
		goal: 'figures only',
		pass: null,
		figures: {
			pages: PAGES,
			stateBytes,
			firstActivationMs: round(first.ms, 0),
			idlePollMs: round(idle.ms, 0),
			pollWithChangesMs: round(busy.ms, 0),
			sitemapFetchMs: round(fetchMs, 0),
			rssBeforeFirstPollMb: round(rssBeforeMb, 0),
			peakRssAfterFirstPollMb: round(first.peakRssMb, 0),
			peakRssAfterPollsMb: round(busy.peakRssMb, 0),
		},
	});
}
