/**
 * The AI guard on by default: Apply Proposal writes only at a page version the
 * site gave (Get Page Context's sealed version, or Page Version as the workflow gives it), never at
 * one only the model wrote, and only to the workflow's page (Page, or the page the sealed version was
 * read for). Each variant of a model's answer that used to write over a newer edit is tried here,
 * in n8n's engine against the reference server.
 */
import type { IDataObject } from 'n8n-workflow';

import { SiteTenant } from '../../../../nodes/SiteTenant/SiteTenant.node';
import { byUrl } from '../../../harness/locators';
import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext({}, { siteTenantTool: new SiteTenant() });

const ORIGINAL = [{ type: 'text', body: 'original' }];
const PROPOSED = [{ type: 'text', body: 'proposed by the model' }];
const EDIT = [{ type: 'text', body: 'a newer edit by a person' }];

let tenant: TenantContext;
let other: TenantContext;
let pageCount = 0;

beforeAll(async () => {
	tenant = await ctx.tenant('guard');
	other = await ctx.tenant('guard-other');
});

/** A fresh page read by Get Page Context, then edited by a person: the version the model saw is old. */
async function readThenEdited(
	t: TenantContext = tenant,
): Promise<{ url: string; sealed: string; readAt: string }> {
	const url = `/guard-${++pageCount}`;
	await seedPages(t.client, [{ url, name: 'Page' }]);
	const put = await t.client.put('/api/content', { url, templates: ORIGINAL });
	const context = await t.run({ resource: 'ai', operation: 'getPageContext', url: byUrl(url) });
	expect(context.error).toBeUndefined();
	expect((await t.client.put('/api/content', { url, templates: EDIT })).status).toBe(200);
	return {
		url,
		sealed: context.items[0].json.version as string,
		readAt: put.data.page.updated_at as string,
	};
}

/** A fresh page read by Get Page Context and left alone. */
async function readUnchanged(t: TenantContext = tenant): Promise<{ url: string; sealed: string }> {
	const url = `/guard-${++pageCount}`;
	await seedPages(t.client, [{ url, name: 'Page' }]);
	await t.client.put('/api/content', { url, templates: ORIGINAL });
	const context = await t.run({ resource: 'ai', operation: 'getPageContext', url: byUrl(url) });
	return { url, sealed: context.items[0].json.version as string };
}

const apply = (proposal: unknown, parameters: IDataObject = {}, t: TenantContext = tenant) =>
	t.run(
		{ resource: 'ai', operation: 'applyProposal', ...parameters },
		{
			input: [{ json: { text: JSON.stringify(proposal) } }],
		},
	);

const templatesOf = async (url: string, t: TenantContext = tenant) =>
	(await readPage(t.client, url))?.templates;

describe('a version only the model gave never writes over a newer edit', () => {
	test.each([
		['no version field', {}],
		['an empty version', { version: '' }],
		['a null version', { version: null }],
	])('%s, Page Version empty, defaults: the item fails, the edit stays', async (_label, extra) => {
		const { url } = await readThenEdited();
		const result = await apply({ url, templates: PROPOSED, ...extra }, { url: byUrl(url) });
		expect(result.error?.message).toBe(
			'The proposal has no page version from the site, and Require Page Version is on. Nothing was written.',
		);
		expect(await templatesOf(url)).toEqual(EDIT);
	});

	test("the page's current updated_at, written by the model (not Get Page Context's): the item fails", async () => {
		const { url } = await readThenEdited();
		const current = (await readPage(tenant.client, url))?.updated_at as string;
		const result = await apply({ url, version: current, templates: PROPOSED }, { url: byUrl(url) });
		expect(result.error?.message).toBe(
			"The proposal's version did not come from the site (AI > Get Page Context), and Require Page Version is on. Nothing was written.",
		);
		expect(await templatesOf(url)).toEqual(EDIT);
	});

	test("Get Page Context's version, copied by the model, for a page edited since: refused by the check", async () => {
		const { url, sealed, readAt } = await readThenEdited();
		const result = await apply({ url, version: sealed, templates: PROPOSED });
		expect(result.error?.message).toMatch(
			new RegExp(
				`^The page changed since the proposal was made: ${url} was last updated at .*, not at ${readAt}\\.`,
			),
		);
		expect(await templatesOf(url)).toEqual(EDIT);
	});

	test('a seal with its time changed, or a made-up one: the item fails naming the page', async () => {
		const { url, sealed } = await readUnchanged();
		const [, seal] = sealed.split('~');
		for (const forged of [
			`2099-01-01T00:00:00.000Z~${seal}`,
			`${sealed.split('~')[0]}~${'A'.repeat(22)}`,
		]) {
			const result = await apply({ url, version: forged, templates: PROPOSED });
			expect(result.error?.message).toBe(
				`The proposal's version was not given for ${url} by AI > Get Page Context with this credential. Nothing was written.`,
			);
		}
		expect(await templatesOf(url)).toEqual(ORIGINAL);
	});
});

describe("the page written is the workflow's", () => {
	test('a proposal naming / with Page empty and no version from the site: the item fails, / is untouched', async () => {
		await seedPages(tenant.client, [{ url: '/', name: 'Home' }]);
		const before = await templatesOf('/');
		for (const parameters of [{}, { requireVersion: false }]) {
			const result = await apply({ url: '/', templates: PROPOSED }, parameters);
			expect(result.error?.message).toBe(
				"Page is empty, and the proposal's page / is only the model's word. Nothing was written.",
			);
		}
		expect(await templatesOf('/')).toEqual(before);
	});

	test("Get Page Context's version for one page, a proposal naming another: the item fails", async () => {
		const { sealed } = await readUnchanged();
		const { url: target } = await readUnchanged();
		const result = await apply({ url: target, version: sealed, templates: PROPOSED });
		expect(result.error?.message).toBe(
			`The proposal's version was not given for ${target} by AI > Get Page Context with this credential. Nothing was written.`,
		);
		expect(await templatesOf(target)).toEqual(ORIGINAL);
	});

	test("a version Get Page Context gave through another tenant's credential: the item fails", async () => {
		const { url, sealed } = await readUnchanged(other);
		await seedPages(tenant.client, [{ url, name: 'Same path, other site' }]);
		const result = await apply({ url, version: sealed, templates: PROPOSED });
		expect(result.error?.message).toMatch(
			/was not given for .* by AI > Get Page Context with this credential/,
		);
		expect(await templatesOf(url, other)).toEqual(ORIGINAL);
	});

	test("Page empty, Get Page Context's version in the proposal: applied to the page it was read for", async () => {
		const { url, sealed } = await readUnchanged();
		const result = await apply({ url, version: sealed, templates: PROPOSED });
		expect(result.error).toBeUndefined();
		expect(await templatesOf(url)).toEqual(PROPOSED);
	});

	test("Page Version from the workflow (Get Page Context's output) and Page named: the model's answer needs no version", async () => {
		const { url, sealed } = await readUnchanged();
		const result = await apply(
			{ url, templates: PROPOSED },
			{ url: byUrl(url), pageVersion: sealed },
		);
		expect(result.error).toBeUndefined();
		expect(await templatesOf(url)).toEqual(PROPOSED);
	});
});

describe('opting out, for a workflow that truly has no version', () => {
	test('Require Page Version off, Page named: written without the check', async () => {
		const { url } = await readThenEdited();
		const result = await apply(
			{ url, templates: PROPOSED },
			{ url: byUrl(url), requireVersion: false },
		);
		expect(result.error).toBeUndefined();
		expect(await templatesOf(url)).toEqual(PROPOSED);
	});

	test("Require Page Version off: a model's own version still stops a write to a changed page", async () => {
		const { url, readAt } = await readThenEdited();
		const result = await apply(
			{ url, version: readAt, templates: PROPOSED },
			{ url: byUrl(url), requireVersion: false },
		);
		expect(result.error?.message).toMatch(/^The page changed since the proposal was made/);
		expect(await templatesOf(url)).toEqual(EDIT);
	});
});

describe("an agent's tools", () => {
	const asTool = (parameters: IDataObject) =>
		tenant.run(parameters as never, { type: 'siteTenantTool' });

	test('the version get_page_context gave, passed back: applied; dropped by the model: the call fails', async () => {
		const { url, sealed } = await readUnchanged();
		const toolContext = await asTool({ resource: 'ai', operation: 'getPageContext', url });
		const version = toolContext.items[0].json.version as string;
		expect(version.split('~')[0]).toBe(sealed.split('~')[0]);

		const dropped = await asTool({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson: JSON.stringify({ url, templates: PROPOSED }),
			url,
		});
		expect(dropped.error?.message).toMatch(/no page version from the site/);
		expect(await templatesOf(url)).toEqual(ORIGINAL);

		const passed = await asTool({
			resource: 'ai',
			operation: 'applyProposal',
			proposalSource: 'json',
			proposalJson: JSON.stringify({ url, version, templates: PROPOSED }),
			url,
		});
		expect(passed.error).toBeUndefined();
		expect(await templatesOf(url)).toEqual(PROPOSED);
	});
});
