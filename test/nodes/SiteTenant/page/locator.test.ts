/** Tenant node: pages picked from a list or given by url, one output shape per resource. */
import { byList, byUrl } from '../../../harness/locators';
import { listSearch } from '../../../harness/list-search';
import {
	listPages,
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();

describe('Page locator', () => {
	let tenant: TenantContext;
	beforeAll(async () => {
		tenant = await ctx.tenant('locator');
		await seedPages(tenant.client, [
			{ url: '/about-us', name: 'About us' },
			{ url: '/keep', name: 'Keep' },
		]);
	});

	test('Get: From List, By URL as a path and as a full address all read the page itself', async () => {
		for (const url of [
			byList('/about-us'),
			byUrl('/about-us'),
			byUrl('https://www.example.com/about-us?ref=mail'),
		]) {
			const result = await tenant.run({ resource: 'page', operation: 'get', url });
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({ url: '/about-us', name: 'About us' });
		}
	});

	test('By URL as a full address with letters the URL parser encodes reaches the page named, not a look-alike', async () => {
		await seedPages(tenant.client, [{ url: '/caf\u00e9', name: 'Cafe' }]);
		const deleted = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byUrl('https://www.example.com/caf\u00e9'),
		});
		expect(deleted.error).toBeUndefined();
		expect(deleted.items[0].json).toMatchObject({ url: '/caf\u00e9', name: 'Cafe', deleted: true });
		expect(await readPage(tenant.client, '/caf\u00e9')).toBeUndefined();
	});

	test('From List acts on the page picked, among pages whose urls look like escapes of one another', async () => {
		const picker = await ctx.tenant('look-alikes');
		// Created as /qa, /q%25, /100%25 and /a%zz: listed as /qa, /q%, /100% and /a%zz.
		await seedPages(picker.client, [
			{ url: '/qa', name: 'qa' },
			{ url: '/q%25', name: 'q percent' },
			{ url: '/100%25', name: 'hundred percent' },
			{ url: '/a%zz', name: 'a zz' },
		]);
		const listed = await listSearch(ctx.runner, {
			type: 'siteTenant',
			method: 'searchPages',
			parameters: { resource: 'content', operation: 'update' },
			credentials: picker.credential,
		});
		const values = listed.results.map((item) => String(item.value));
		expect(values).toEqual(['/qa', '/q%', '/100%', '/a%zz']);
		// A page listed as /q%41 would be /qa read once more: the service does not make one.
		const lookAlike = await picker.run({
			resource: 'page',
			operation: 'create',
			name: 'q escaped A',
			url: '/q%2541',
			locale: 'en',
		});
		expect(lookAlike.error?.message).toBe('The field url is invalid.');
		const templatesOf = async () =>
			Object.fromEntries(
				(await listPages(picker.client)).map((page) => [page.url, page.templates]),
			);
		for (const value of values) {
			const updated = await picker.run({
				resource: 'content',
				operation: 'update',
				url: byList(value),
				templates: JSON.stringify([{ type: 'text', text: `for ${value}` }]),
			});
			expect(updated.error).toBeUndefined();
			expect(updated.items[0].json).toMatchObject({ url: value });
		}
		expect(await templatesOf()).toEqual(
			Object.fromEntries(values.map((value) => [value, [{ type: 'text', text: `for ${value}` }]])),
		);
		// Delete, read first then erased: each takes its own page, the others stay.
		const left = [...values];
		for (const value of [...values].reverse()) {
			const deleted = await picker.run({
				resource: 'page',
				operation: 'delete',
				url: byList(value),
				permanently: true,
			});
			expect(deleted.error).toBeUndefined();
			expect(deleted.items[0].json).toMatchObject({ url: value, deleted: true });
			left.pop();
			expect(Object.keys(await templatesOf())).toEqual(left);
		}
	});

	test('By URL as a full address with an escape of an escape is refused, not read as another page', async () => {
		await seedPages(tenant.client, [{ url: '/qa', name: 'qa' }]);
		const result = await tenant.run({
			resource: 'content',
			operation: 'update',
			url: byUrl('https://www.example.com/q%2541'),
			templates: JSON.stringify([{ type: 'text', text: 'not for /qa' }]),
		});
		expect(result.error?.message).toBe('The field url is invalid.');
		expect(result.error?.description).toContain('url: is percent-encoded twice');
		expect((await readPage(tenant.client, '/qa'))?.templates).toEqual([]);
	});

	test("By URL that is no page url: n8n stops a typed value with the mode's message, the node one from an expression", async () => {
		await expect(
			tenant.run({ resource: 'page', operation: 'get', url: byUrl('about-us') }),
		).rejects.toThrow('Not a page url. Give a site path such as /about-us');
		const result = await tenant.run({
			resource: 'page',
			operation: 'get',
			url: byUrl('={{ "about" + "-us" }}'),
		});
		expect(result.error?.message).toBe('The parameter "Page" is not a page url: "about-us"');
		expect(result.error?.description).toContain('/about-us');
		await expect(
			tenant.run({ resource: 'page', operation: 'get', url: byList('') }),
		).rejects.toThrow('Parameter "Page" is required');
		const empty = await tenant.run({
			resource: 'page',
			operation: 'get',
			url: byList('={{ $json.missing ?? "" }}'),
		});
		expect(empty.error?.message).toBe('The parameter "Page" is required');
	});

	test("an unknown page fails with the one reader's message, in Page > Get and AI > Get Page Context alike", async () => {
		const get = await tenant.run({ resource: 'page', operation: 'get', url: byUrl('/nope') });
		const context = await tenant.run({
			resource: 'ai',
			operation: 'getPageContext',
			url: byUrl('/nope'),
		});
		expect(get.error?.message).toBe('No page with url "/nope"');
		expect(context.error?.message).toBe(get.error?.message);
	});

	test('one output shape: Create, Get, Content > Update and Apply Proposal output the page; Delete the page plus deleted', async () => {
		const created = await tenant.run({
			resource: 'page',
			operation: 'create',
			name: 'Fresh',
			url: '/fresh',
			locale: 'en',
		});
		expect(created.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates: [] });
		expect(created.items[0].json).not.toHaveProperty('message');

		const templates = [{ type: 'text', text: 'Hi' }];
		const updated = await tenant.run({
			resource: 'content',
			operation: 'update',
			url: byList('/fresh'),
			templates: JSON.stringify(templates),
		});
		expect(updated.items[0].json).toMatchObject({ url: '/fresh', name: 'Fresh', templates });

		const applied = await tenant.run({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson: JSON.stringify({ templates: [{ type: 'text', text: 'AI' }] }),
			url: byList('/fresh'),
			requireVersion: false,
		});
		expect(applied.error).toBeUndefined();
		expect(applied.items[0].json).toMatchObject({
			url: '/fresh',
			name: 'Fresh',
			templates: [{ type: 'text', text: 'AI' }],
		});

		const deleted = await tenant.run({
			resource: 'page',
			operation: 'delete',
			url: byList('/fresh'),
		});
		expect(deleted.items[0].json).toMatchObject({
			url: '/fresh',
			name: 'Fresh',
			deleted: true,
			permanently: false,
		});
		expect(deleted.items[0].json).not.toHaveProperty('page');
		expect(await readPage(tenant.client, '/fresh')).toBeUndefined();
	});

	test('a plain string (as an AI agent gives it) is read as the page url', async () => {
		const got = await tenant.run({ resource: 'page', operation: 'get', url: '/keep' });
		expect(got.error).toBeUndefined();
		expect(got.items[0].json).toMatchObject({ url: '/keep', name: 'Keep' });
		const missing = await tenant.run({ resource: 'page', operation: 'get', url: '/nope' });
		expect(missing.error?.message).toBe('No page with url "/nope"');
	});
});
