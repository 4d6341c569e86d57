/**
 * Site Management Trigger in n8n's engine against a loopback site that serves crafted sitemaps: a
 * site that drips its answer, clocks that disagree, and answers outside the contract.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SitePageTrigger } from '../../../nodes/SitePageTrigger/SitePageTrigger.node';
import { MAX_NAME_LENGTH } from '../../../nodes/SitePageTrigger/snapshot';
import { DIGEST_CELLS } from '../../../nodes/SitePageTrigger/state';
import { startCraftedSite, type CraftedPage, type CraftedSite } from '../../harness/crafted-site';
import { jsonOf, useNodeTestContext } from '../../harness/nodes';
import { PollTriggerWorkflow } from '../../harness/poll-trigger';

const ctx = useNodeTestContext();

let site: CraftedSite;
beforeEach(async () => {
	site = await startCraftedSite();
});
afterEach(async () => {
	await site.close();
});

function trigger(parameters: INodeParameters = {}) {
	const credential = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: site.url,
		token: 'crafted-token',
	});
	return new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
		type: 'sitePageTrigger',
		parameters: { events: ['pagePublished', 'pageUpdated', 'pageRemoved'], ...parameters },
		credentials: credential,
	});
}

const T0 = Date.parse('2030-01-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;

function serve(generatedAt: number, pages: CraftedPage[]) {
	site.sitemap = { generated_at: at(generatedAt), pages };
}

async function pollItems(workflow: PollTriggerWorkflow) {
	const result = await workflow.poll();
	if (result.error) throw result.error;
	return (result.items ? jsonOf(result.items) : []) as IDataObject[];
}

async function pollLines(workflow: PollTriggerWorkflow) {
	return (await pollItems(workflow)).map((item) => `${String(item.event)} ${String(item.url)}`);
}

describe('Site Management Trigger, a poll deadline', () => {
	/**
	 * The dripped sitemap (about 180 bytes, a byte every 500 ms) takes over 90 s to arrive whole; a
	 * poll that waited for it could not end before this. The deadline is 10 s (a whole poll of a site
	 * that answers at once fits in it on a starved machine), so this is 6x it and only stops a poll
	 * that did not end at its deadline.
	 */
	const ENDS_WITHIN_MS = 60 * SECOND;

	test('a sitemap dripped byte by byte fails the poll at the deadline, saying so; the next poll goes on', async () => {
		serve(0, [{ url: '/', updated_at: at(-DAY) }]);
		const workflow = trigger({ options: { pollDeadline: 10 } });
		expect((await workflow.activate()).error).toBeUndefined();

		serve(MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/new', updated_at: at(30 * SECOND) },
		]);
		// A byte every 500 ms: the site never pauses for long, so only a deadline over the whole poll
		// (not a Timeout between two bytes) ends it.
		site.dripMs = 500;
		const started = Date.now();
		const slow = await workflow.poll();
		const took = Date.now() - started;
		expect(slow.error?.message).toMatch(/did not answer within the poll deadline \(10 s\)/);
		// Not before its deadline (a loaded machine only makes it later)…
		expect(took).toBeGreaterThanOrEqual(10 * SECOND - 50);
		// …and not at the end of the drip.
		expect(site.answers.at(-1)?.whole).toBe(false);
		expect(took).toBeLessThan(ENDS_WITHIN_MS);

		// Nothing was lost: the next poll, on a site that answers, reports the page once.
		site.dripMs = 0;
		expect(await pollLines(workflow)).toEqual(['pagePublished /new']);
		expect(await pollLines(workflow)).toEqual([]);
	}, 180_000);
});

describe('Site Management Trigger, a size cap', () => {
	test('a sitemap that never ends fails the poll at Max Answer Size, long before the deadline', async () => {
		serve(0, [{ url: '/', updated_at: at(-DAY) }]);
		// The longest deadline there is (300 s): only the size cap can end this poll within the test.
		const workflow = trigger({ options: { maxAnswerMb: 1, pollDeadline: 300 } });
		expect((await workflow.activate()).error).toBeUndefined();

		site.endless = true;
		const started = Date.now();
		const endless = await workflow.poll();
		expect(endless.error?.message).toBe(
			'The answer to POST /api/sitemap is larger than 1 MB; it was not read',
		);
		expect((endless.error as { description?: string } | undefined)?.description).toMatch(
			/Max Answer Size \(MB\)/,
		);
		// n8n hung up on the endless answer, long before the deadline: reading 1 MB takes well under a
		// second, the deadline is 300 s; the bound is a tenth of it, only to stop a hung poll.
		await site.endlessClosed;
		expect(Date.now() - started).toBeLessThan(30 * SECOND);

		// The state is untouched: a site back to normal reports the page once.
		site.endless = false;
		serve(MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/new', updated_at: at(30 * SECOND) },
		]);
		expect(await pollLines(workflow)).toEqual(['pagePublished /new']);
	}, 60_000);

	test('a sitemap just under the cap is read whole', async () => {
		const pages = Array.from({ length: 4700 }, (_, i) => ({
			url: `/p/${i}`,
			name: 'x'.repeat(150),
			updated_at: at(-DAY),
		}));
		serve(0, pages);
		const size = Buffer.byteLength(JSON.stringify({ tenant_id: 'crafted', ...site.sitemap }));
		expect(size).toBeGreaterThan(0.9 * 1024 * 1024);
		expect(size).toBeLessThan(1024 * 1024);
		const workflow = trigger({ options: { maxAnswerMb: 1 } });
		expect((await workflow.activate()).error).toBeUndefined();
		serve(MINUTE, [...pages, { url: '/new', updated_at: at(30 * SECOND) }].slice(1));
		expect((await pollLines(workflow)).sort()).toEqual(['pagePublished /new', 'pageRemoved /p/0']);
	}, 30_000);
});

describe('Site Management Trigger, a bulk change', () => {
	const old = Array.from({ length: 100 }, (_, i) => ({
		url: `/old/${i}`,
		created_at: at(-2 * DAY),
		updated_at: at(-DAY),
	}));
	// Back again, stamps unchanged: a page restored, or a draft published in place.
	const back = { url: '/back', created_at: at(-2 * DAY), updated_at: at(-DAY) };
	const fresh = Array.from({ length: DIGEST_CELLS }, (_, i) => ({
		url: `/new/${i}`,
		created_at: at(30 * SECOND),
		updated_at: at(30 * SECOND),
	}));

	test('a page back again among more new pages than the digest holds is reported published', async () => {
		serve(0, old);
		const workflow = trigger();
		expect((await workflow.activate()).error).toBeUndefined();
		serve(MINUTE, [...old.slice(1), back, ...fresh]);
		const lines = await pollLines(workflow);
		expect(lines).toContain('pagePublished /back');
		expect(lines).toContain('pageRemoved /old/0');
		expect(lines.filter((line) => line.startsWith('pagePublished /new/'))).toHaveLength(
			fresh.length,
		);
		expect(lines).toHaveLength(fresh.length + 2);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('a page back again among more removals than the digest holds: reported when its stamp moved', async () => {
		const many = Array.from({ length: DIGEST_CELLS }, (_, i) => ({
			url: `/gone/${i}`,
			created_at: at(-2 * DAY),
			updated_at: at(-DAY),
		}));
		serve(0, [...old, ...many]);
		const workflow = trigger();
		expect((await workflow.activate()).error).toBeUndefined();
		serve(MINUTE, [...old, { ...back, updated_at: at(30 * SECOND) }]);
		const items = await pollItems(workflow);
		// Once: published where the digest could still name it, else updated.
		const reported = items.filter((item) => item.url === '/back').map((item) => item.event);
		expect(reported).toHaveLength(1);
		expect(['pagePublished', 'pageUpdated']).toContain(reported[0]);
		const removals = items.filter((item) => item.event === 'pageRemoved');
		const named = removals.filter((item) => item.url !== null).length;
		const unnamed = removals.filter((item) => item.url === null);
		// The number of the unnamed is net of a page back again that the digest could not name.
		const backUnnamed = reported[0] === 'pageUpdated' ? 1 : 0;
		expect(named + Number(unnamed[0]?.unnamed_removals ?? 0) + backUnnamed).toBe(many.length);
	});
});

describe('Site Management Trigger, clocks', () => {
	test('a page stamped a day ahead does not hide the updates of another page', async () => {
		serve(0, [
			{ url: '/future', updated_at: at(DAY) },
			{ url: '/a', updated_at: at(-60 * MINUTE) },
		]);
		const workflow = trigger();
		await workflow.activate();
		expect(await pollLines(workflow)).toEqual([]);

		serve(MINUTE, [
			{ url: '/future', updated_at: at(DAY) },
			{ url: '/a', updated_at: at(30 * SECOND) },
		]);
		expect(await pollLines(workflow)).toEqual(['pageUpdated /a']);
		expect(await pollLines(workflow)).toEqual([]);

		serve(2 * MINUTE, [
			{ url: '/future', updated_at: at(DAY) },
			{ url: '/a', updated_at: at(90 * SECOND) },
		]);
		expect(await pollLines(workflow)).toEqual(['pageUpdated /a']);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('a write committed after a poll with a stamp below what that poll saw is reported once', async () => {
		serve(0, [
			{ url: '/a', updated_at: at(-60 * MINUTE) },
			{ url: '/b', updated_at: at(0) },
		]);
		const workflow = trigger();
		await workflow.activate();

		serve(MINUTE, [
			{ url: '/a', updated_at: at(-2 * SECOND) },
			{ url: '/b', updated_at: at(0) },
		]);
		expect(await pollLines(workflow)).toEqual(['pageUpdated /a']);
		expect(await pollLines(workflow)).toEqual([]);
		// What the state keeps for that does not list pages.
		expect(JSON.stringify(workflow.saved)).not.toContain('/a');
	});
});

describe('Site Management Trigger, answers outside the contract', () => {
	test('a url the sitemap lists twice fails the poll naming it, and reports no page', async () => {
		serve(0, [{ url: '/', updated_at: at(-DAY) }]);
		const workflow = trigger();
		await workflow.activate();

		const twice = { url: '/twice', updated_at: at(0) };
		serve(MINUTE, [{ url: '/', updated_at: at(-DAY) }, twice, { ...twice }]);
		const result = await workflow.poll();
		expect(result.error?.message).toMatch(/lists the url "\/twice" twice/);
		expect(result.items).toBeNull();

		serve(2 * MINUTE, [{ url: '/', updated_at: at(-DAY) }, twice]);
		expect(await pollLines(workflow)).toEqual(['pagePublished /twice']);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('an updated_at that is not a time fails the poll naming the page', async () => {
		serve(0, [{ url: '/', updated_at: at(-DAY) }]);
		const workflow = trigger();
		await workflow.activate();

		serve(MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/odd', updated_at: 'yesterday' },
		]);
		const result = await workflow.poll();
		expect(result.error?.message).toMatch(/page "\/odd" an updated_at that is not a time/);

		serve(2 * MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/odd', updated_at: at(MINUTE) },
		]);
		expect(await pollLines(workflow)).toEqual(['pagePublished /odd']);
	});

	test('a 70,000-character name is cut, and the page is published, updated and removed as usual', async () => {
		serve(0, [{ url: '/', updated_at: at(-DAY) }]);
		const workflow = trigger();
		await workflow.activate();

		const name = 'n'.repeat(70_000);
		serve(MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/long', name, updated_at: at(30 * SECOND) },
		]);
		const published = await pollItems(workflow);
		expect(published.map((item) => [item.event, item.url])).toEqual([['pagePublished', '/long']]);
		expect(String(published[0].name)).toBe(name.slice(0, MAX_NAME_LENGTH));
		expect(await pollLines(workflow)).toEqual([]);

		serve(2 * MINUTE, [
			{ url: '/', updated_at: at(-DAY) },
			{ url: '/long', name, updated_at: at(90 * SECOND) },
		]);
		expect(await pollLines(workflow)).toEqual(['pageUpdated /long']);

		serve(3 * MINUTE, [{ url: '/', updated_at: at(-DAY) }]);
		expect(await pollLines(workflow)).toEqual(['pageRemoved /long']);
		expect(await pollLines(workflow)).toEqual([]);
	});
});
