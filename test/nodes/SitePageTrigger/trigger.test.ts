/**
 * Site Management Trigger (polling) in n8n's engine against a real reference server: what each poll
 * emits, what it keeps, and that no change is lost or reported twice across polls, a failed poll and
 * an n8n restart.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SitePageTrigger } from '../../../nodes/SitePageTrigger/SitePageTrigger.node';
import { DIGEST_CELLS } from '../../../nodes/SitePageTrigger/state';
import { jsonOf, seedPages, useNodeTestContext, type TenantContext } from '../../harness/nodes';
import { PollTriggerWorkflow } from '../../harness/poll-trigger';

const ctx = useNodeTestContext();

function trigger(tenant: TenantContext, parameters: INodeParameters = {}) {
	return new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
		type: 'sitePageTrigger',
		parameters: {
			events: ['pagePublished', 'pageUpdated', 'pageRemoved'],
			...parameters,
		},
		credentials: tenant.credential,
	});
}

/**
 * Two writes in one millisecond tie on updated_at (ties go by url); a test that needs one change to be
 * the latest lets the clock move on first.
 */
const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 5));

async function updateContent(tenant: TenantContext, url: string, body = 'changed') {
	const response = await tenant.client.put('/api/content', {
		url,
		templates: [{ type: 'text', body }],
	});
	expect(response.status).toBe(200);
	return response.data.page as IDataObject;
}

async function removePage(tenant: TenantContext, url: string, permanently = false) {
	const response = await tenant.client.delete('/api/page', {
		data: { url, ...(permanently ? { permanently: 1 } : {}) },
	});
	expect(response.status).toBe(200);
}

/** The changes of a poll as `event url` lines, in order. */
function lines(items: IDataObject[] | null | undefined) {
	return (items ?? []).map((item) => `${String(item.event)} ${String(item.url)}`);
}

async function pollLines(workflow: PollTriggerWorkflow) {
	const result = await workflow.poll();
	if (result.error) throw result.error;
	return lines(result.items && jsonOf(result.items));
}

describe('Site Management Trigger', () => {
	test('the first activation emits nothing and remembers the site in a state that does not list pages', async () => {
		const tenant = await ctx.tenant('trigger-first');
		await seedPages(tenant.client, [
			{ url: '/' },
			{ url: '/about-us' },
			{ url: '/draft', draft: true },
		]);
		const workflow = trigger(tenant);

		const activation = await workflow.activate();
		expect(activation.error).toBeUndefined();
		expect(activation.items).toBeNull();
		const stored = JSON.stringify(workflow.saved);
		expect(stored).not.toContain('/about-us');
		const node = workflow.staticData.state as IDataObject;
		expect(node).toMatchObject({ pages: 2, drafts: false });
		expect((node.digest as IDataObject).cells).toBe(DIGEST_CELLS);

		expect(await pollLines(workflow)).toEqual([]);
	});

	test('publishes, updates and removals come out once each, in the poll after they happen', async () => {
		const tenant = await ctx.tenant('trigger-changes');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/about-us' }, { url: '/contact' }]);
		const workflow = trigger(tenant);
		await workflow.activate();

		await seedPages(tenant.client, [{ url: '/news', name: 'News', locale: 'de' }]);
		const updated = await updateContent(tenant, '/about-us');
		await removePage(tenant, '/contact');
		const result = await workflow.poll();
		expect(result.error).toBeUndefined();
		const items = jsonOf(result.items ?? []);
		expect(items).toHaveLength(3);
		// Every item says which site it came from.
		const site = { tenant_id: 'trigger-changes', site: ctx.site.url };
		expect(items).toEqual(
			expect.arrayContaining([
				{
					event: 'pagePublished',
					url: '/news',
					name: 'News',
					locale: 'de',
					updated_at: expect.any(String),
					...site,
				},
				{
					event: 'pageUpdated',
					url: '/about-us',
					name: '/about-us',
					locale: 'en',
					updated_at: updated.updated_at,
					...site,
				},
				{
					event: 'pageRemoved',
					url: '/contact',
					name: '/contact',
					locale: 'en',
					updated_at: expect.any(String),
					...site,
				},
			]),
		);
		// Removals come last: they carry the time the trigger saw them gone.
		expect(items[2].event).toBe('pageRemoved');
		expect(Date.parse(items[2].updated_at as string)).toBeGreaterThanOrEqual(
			Date.parse(updated.updated_at as string),
		);

		expect(await pollLines(workflow)).toEqual([]);

		// A url deleted and created again between polls was published before and after: an update.
		await removePage(tenant, '/news', true);
		await seedPages(tenant.client, [{ url: '/news', name: 'News', locale: 'de' }]);
		await updateContent(tenant, '/');
		expect((await pollLines(workflow)).sort()).toEqual(['pageUpdated /', 'pageUpdated /news']);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('only the chosen events start the workflow', async () => {
		const tenant = await ctx.tenant('trigger-filter');
		await seedPages(tenant.client, [{ url: '/a' }, { url: '/b' }]);
		const workflow = trigger(tenant, { events: ['pageRemoved'] });
		await workflow.activate();
		await seedPages(tenant.client, [{ url: '/c' }]);
		await updateContent(tenant, '/a');
		expect(await pollLines(workflow)).toEqual([]);
		await removePage(tenant, '/b');
		expect(await pollLines(workflow)).toEqual(['pageRemoved /b']);
	});

	test('a failed poll reports the error and loses nothing: the next poll catches up, once', async () => {
		const tenant = await ctx.tenant('trigger-down');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/old' }]);
		const workflow = trigger(tenant);
		await workflow.activate();
		await seedPages(tenant.client, [{ url: '/before-outage' }]);
		await removePage(tenant, '/old');
		const stateBefore = JSON.stringify(workflow.staticData);

		// The site is down for a poll: every API request answers 503.
		await ctx.site.restart({ faultRate: 1 });
		try {
			const failed = await workflow.poll();
			expect(failed.items).toBeNull();
			expect(failed.error?.message).toMatch(/unavailable/i);
			expect(JSON.stringify(workflow.staticData)).toBe(stateBefore);
		} finally {
			await ctx.site.restart({ faultRate: 0 });
		}

		await updateContent(tenant, '/');
		expect((await pollLines(workflow)).sort()).toEqual([
			'pagePublished /before-outage',
			'pageRemoved /old',
			'pageUpdated /',
		]);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('an n8n restart picks up from the saved state: changes while n8n was down come once', async () => {
		const tenant = await ctx.tenant('trigger-restart');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/gone' }]);
		const workflow = trigger(tenant);
		await workflow.activate();
		await seedPages(tenant.client, [{ url: '/first' }]);
		expect(await pollLines(workflow)).toEqual(['pagePublished /first']);

		// n8n stops; meanwhile the site changes.
		await seedPages(tenant.client, [{ url: '/while-down' }]);
		await removePage(tenant, '/gone');
		const restarted = await workflow.restart();
		expect(restarted.error).toBeUndefined();
		expect(lines(jsonOf(restarted.items ?? [])).sort()).toEqual([
			'pagePublished /while-down',
			'pageRemoved /gone',
		]);
		expect(await pollLines(workflow)).toEqual([]);

		// A poll that emitted nothing is not saved by n8n: a restart after it compares with the older
		// saved state and still reports nothing new twice.
		await workflow.restart();
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('Include Drafts watches draft pages too, through the listing', async () => {
		const tenant = await ctx.tenant('trigger-drafts');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/draft-old', draft: true }]);
		const plain = trigger(tenant);
		const withDrafts = trigger(tenant, { includeDrafts: true });
		await plain.activate();
		await withDrafts.activate();
		expect((withDrafts.staticData.state as IDataObject).pages).toBe(2);

		await seedPages(tenant.client, [{ url: '/draft-new', name: 'Draft', draft: true }]);
		await updateContent(tenant, '/draft-old');
		expect(await pollLines(plain)).toEqual([]);
		const result = await withDrafts.poll();
		expect(jsonOf(result.items ?? [])).toEqual([
			expect.objectContaining({ event: 'pagePublished', url: '/draft-new', draft: true }),
			expect.objectContaining({ event: 'pageUpdated', url: '/draft-old', draft: true }),
		]);
		await removePage(tenant, '/draft-new');
		expect(await pollLines(withDrafts)).toEqual(['pageRemoved /draft-new']);
	});

	test('Include Content reads the page record of each change; a removed page has none', async () => {
		const tenant = await ctx.tenant('trigger-content');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/bye' }]);
		const workflow = trigger(tenant, { includeContent: true });
		await workflow.activate();
		await updateContent(tenant, '/', 'hello content');
		await removePage(tenant, '/bye');
		const items = jsonOf((await workflow.poll()).items ?? []);
		expect(items).toEqual([
			expect.objectContaining({
				event: 'pageUpdated',
				url: '/',
				page: expect.objectContaining({
					url: '/',
					templates: [{ type: 'text', body: 'hello content' }],
				}),
			}),
			expect.objectContaining({ event: 'pageRemoved', url: '/bye', page: null }),
		]);
	});

	test('Fetch Test Event shows the latest change, or the newest page, and keeps the state as it was', async () => {
		const tenant = await ctx.tenant('trigger-manual');
		await seedPages(tenant.client, [{ url: '/' }, { url: '/newest' }]);
		await nextMillisecond();
		await updateContent(tenant, '/newest');
		const workflow = trigger(tenant);

		const sample = await workflow.fetchTestEvent();
		expect(jsonOf(sample.items ?? [])).toEqual([
			expect.objectContaining({ event: 'pageUpdated', url: '/newest' }),
		]);
		expect(workflow.staticData.state).toBeUndefined();

		await workflow.activate();
		const stateBefore = JSON.stringify(workflow.staticData);
		await seedPages(tenant.client, [{ url: '/a' }]);
		await nextMillisecond();
		await updateContent(tenant, '/');
		const latest = await workflow.fetchTestEvent();
		expect(lines(jsonOf(latest.items ?? []))).toEqual(['pageUpdated /']);
		expect(JSON.stringify(workflow.staticData)).toBe(stateBefore);
		// The active trigger still sees both changes.
		expect(await pollLines(workflow)).toEqual(['pagePublished /a', 'pageUpdated /']);
	});

	test('works with the Managed Tenant credential', async () => {
		const tenant = await ctx.tenant('trigger-managed');
		await seedPages(tenant.client, [{ url: '/' }]);
		const credentials = ctx.managedCredential(tenant.id);
		const workflow = new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
			type: 'sitePageTrigger',
			parameters: { authentication: 'managedTenant', events: ['pagePublished'] },
			credentials,
		});
		expect((await workflow.activate()).error).toBeUndefined();
		await seedPages(tenant.client, [{ url: '/managed' }]);
		expect(await pollLines(workflow)).toEqual(['pagePublished /managed']);
	});

	test('more publishes and removals than the digest holds: new pages named from the listing, removals counted', async () => {
		const tenant = await ctx.tenant('trigger-overflow');
		const old = Array.from({ length: 600 }, (_, i) => ({ url: `/old/${i}` }));
		await seedPages(tenant.client, [{ url: '/' }, ...old], 20);
		const workflow = trigger(tenant);
		await workflow.activate();

		// Many more new pages than cells: every one is still named as published.
		const fresh = Array.from({ length: DIGEST_CELLS + 50 }, (_, i) => ({ url: `/new/${i}` }));
		await seedPages(tenant.client, fresh, 20);
		await removePage(tenant, '/old/0');
		const burst = await pollLines(workflow);
		expect(burst.filter((line) => line.startsWith('pagePublished /new/'))).toHaveLength(
			fresh.length,
		);
		expect(burst.filter((line) => line.startsWith('pageRemoved'))).toEqual(['pageRemoved /old/0']);
		expect(burst).toHaveLength(fresh.length + 1);
		expect(await pollLines(workflow)).toEqual([]);

		// More removals than the digest can name: those it names, and one item with the rest's number.
		for (let i = 1; i < 600; i += 20)
			await Promise.all(old.slice(i, i + 20).map((page) => removePage(tenant, page.url)));
		const removals = jsonOf((await workflow.poll()).items ?? []);
		const named = removals.filter((item) => item.url !== null);
		const unnamed = removals.filter((item) => item.url === null);
		expect(named.every((item) => item.event === 'pageRemoved')).toBe(true);
		expect(new Set(named.map((item) => item.url)).size).toBe(named.length);
		expect(unnamed).toHaveLength(1);
		expect(named.length + Number(unnamed[0].unnamed_removals)).toBe(599);
		expect(await pollLines(workflow)).toEqual([]);
	});

	test('an empty event list is refused with a clear error', async () => {
		const tenant = await ctx.tenant('trigger-no-events');
		const workflow = trigger(tenant, { events: [] });
		expect((await workflow.activate()).error?.message).toMatch(/Events/);
	});
});

describe('Site Management Trigger, overlapping polls', () => {
	test('a poll that starts while the previous one runs does nothing: each change comes once', async () => {
		const tenant = await ctx.tenant('trigger-overlap');
		await seedPages(tenant.client, [{ url: '/' }]);
		const workflow = trigger(tenant);
		await workflow.activate();
		await seedPages(tenant.client, [{ url: '/once' }]);
		const [a, b] = await Promise.all([workflow.poll(), workflow.poll()]);
		const emitted = [a, b].flatMap((result) => lines(jsonOf(result.items ?? [])));
		expect(emitted).toEqual(['pagePublished /once']);
		expect(await pollLines(workflow)).toEqual([]);
	});
});
