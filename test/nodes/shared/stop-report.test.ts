/**
 * On Error "Stop" through n8n's engine: the first failure starts no further item, the items in flight
 * end, and the error (the first failure's own message) says which items were applied, which failed
 * and which never started, and names the operation.
 */
import { listPages, useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

const create = (concurrency: number) => ({
	resource: 'page',
	operation: 'create',
	name: 'Welcome',
	url: '={{ $json.url }}',
	locale: 'en',
	options: { concurrency },
});

const urlsOf = async (tenant: { client: Parameters<typeof listPages>[0] }) =>
	(await listPages(tenant.client)).map((page) => page.url).sort();

test('one at a time: the items before the failure were applied, none after it started', async () => {
	const tenant = await ctx.tenant('stop-serial');
	const urls = ['/s0', '/s1', '/s2', '/s1', '/s4', '/s5'];
	const result = await tenant.run(create(1), { input: urls.map((url) => ({ json: { url } })) });
	expect(result.error?.message).toBe('A page with url "/s1" already exists.');
	expect(result.error?.httpCode).toBe('409');
	expect(result.error?.description).toBe(
		[
			'Page > Create stopped at the first failure: 3 of 6 items applied, 1 failed, 2 not started.',
			'Applied: items 0-2.',
			'Failed: item 3: A page with url "/s1" already exists.',
			'Not started: items 4-5.',
		].join('\n'),
	);
	expect(result.error?.context?.run).toEqual({
		operation: 'Page > Create',
		items: 6,
		applied: [0, 1, 2],
		failed: [{ item: 3, message: 'A page with url "/s1" already exists.', tenant: null }],
		notStarted: [4, 5],
	});
	expect(await urlsOf(tenant)).toEqual(['/s0', '/s1', '/s2']);
});

test('items in flight when one fails still end and are reported as applied; no new one starts', async () => {
	const tenant = await ctx.tenant('stop-window');
	// Item 0 fails before any request (no url); items 1 and 2 started with it (3 in flight).
	const urls = ['', '/w1', '/w2', '/w3', '/w4', '/w5', '/w6'];
	const result = await tenant.run(create(3), { input: urls.map((url) => ({ json: { url } })) });
	expect(result.error?.message).toBe('Page URL is required');
	expect(result.error?.description).toContain(
		[
			'Page > Create stopped at the first failure: 2 of 7 items applied, 1 failed, 4 not started.',
			'Applied: items 1-2.',
			'Failed: item 0: Page URL is required',
			'Not started: items 3-6.',
		].join('\n'),
	);
	expect(await urlsOf(tenant)).toEqual(['/w1', '/w2']);
});

test('every failure among the items in flight is listed with its message', async () => {
	const tenant = await ctx.tenant('stop-many');
	const urls = ['/m0', '', '/m2', '', '/m4'];
	const result = await tenant.run(create(4), { input: urls.map((url) => ({ json: { url } })) });
	expect(result.error?.message).toBe('Page URL is required');
	expect(result.error?.description).toContain(
		[
			'Page > Create stopped at the first failure: 2 of 5 items applied, 2 failed, 1 not started.',
			'Applied: items 0, 2.',
			'Failed: item 1: Page URL is required',
			'Failed: item 3: Page URL is required',
			'Not started: items 4.',
		].join('\n'),
	);
	expect(await urlsOf(tenant)).toEqual(['/m0', '/m2']);
});

test('with batching, the batches before the failing one count as applied', async () => {
	const tenant = await ctx.tenant('stop-batches');
	const urls = ['/b0', '/b1', '/b2', '/b3', '/b1', '/b5', '/b6', '/b7'];
	const result = await tenant.run(
		{ ...create(1), options: { concurrency: 1, batching: { batch: { batchSize: 2 } } } },
		{ input: urls.map((url) => ({ json: { url } })) },
	);
	expect(result.error?.description).toContain(
		'Page > Create stopped at the first failure: 4 of 8 items applied, 1 failed, 3 not started.\nApplied: items 0-3.\nFailed: item 4: A page with url "/b1" already exists.\nNot started: items 5-7.',
	);
});

test('a single item: the error keeps its own description and names the operation', async () => {
	const tenant = await ctx.tenant('stop-single');
	const invalid = await tenant.run(create(1), { input: [{ json: { url: 'bad url' } }] });
	expect(invalid.error?.description).toMatch(/^url: must be a site path/);
	expect(invalid.error?.description).toMatch(/\n\nPage > Create failed for item 0\.$/);
	const missing = await tenant.run({ resource: 'settings', operation: 'update', updateFields: {} });
	expect(missing.error?.description).toMatch(/Setting > Update failed for item 0\.$/);
});
