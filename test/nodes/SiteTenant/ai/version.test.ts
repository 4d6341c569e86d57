/**
 * A proposal knows its page version: AI > Get Page Context gives `version` (the page's updated_at),
 * and AI > Apply Proposal (and Content > Update with Only If Unchanged Since) writes only while the
 * page still has it. Changed before the apply: refused, nothing written. Changed between the node's
 * read and its write: the server's `if_updated_at` precondition refuses it (412). Against a service
 * without that extension (the reference server's --no-extensions): read, compare, write.
 */
import type { INodeCredentials } from 'n8n-workflow';

import { startDelayProxy, type DelayProxy } from '../../../harness/delay-proxy';
import { byUrl } from '../../../harness/locators';
import {
	readPage,
	seedPages,
	useNodeTestContext,
	type TenantContext,
} from '../../../harness/nodes';

const ctx = useNodeTestContext();
const plain = useNodeTestContext({ extensions: false });

const ORIGINAL = [{ type: 'text', body: 'original' }];
const PROPOSED = [{ type: 'text', body: 'proposed by the model' }];
const EDIT = [{ type: 'text', body: 'a newer edit by a person' }];

let tenant: TenantContext;
let proxy: DelayProxy;
let viaProxy: INodeCredentials;
/** Run before the proxy forwards a request; each test sets what it needs. */
let beforeForward: (method: string, path: string, body: string) => Promise<void> = async () => {};
const sentBodies: Array<Record<string, unknown>> = [];

beforeAll(async () => {
	tenant = await ctx.tenant('version');
	proxy = await startDelayProxy(() => ctx.site.url, {
		beforeForward: async (request, body) => {
			if (request.method === 'PUT') sentBodies.push(JSON.parse(body.toString('utf8')));
			await beforeForward(request.method, request.path, body.toString('utf8'));
		},
	});
	viaProxy = ctx.runner.credentials.add('siteTenantApi', {
		baseUrl: proxy.url,
		token: tenant.token,
	});
});
afterAll(async () => {
	await proxy?.close();
});
beforeEach(() => {
	beforeForward = async () => {};
	sentBodies.length = 0;
});

/** A fresh page with the original content; returns the page version. */
async function freshPage(t: TenantContext, url: string): Promise<string> {
	await seedPages(t.client, [{ url, name: 'Page' }]);
	const put = await t.client.put('/api/content', { url, templates: ORIGINAL });
	expect(put.status).toBe(200);
	return put.data.page.updated_at as string;
}

async function edit(t: TenantContext, url: string): Promise<string> {
	const put = await t.client.put('/api/content', { url, templates: EDIT });
	expect(put.status).toBe(200);
	return put.data.page.updated_at as string;
}

/** The version Get Page Context gives for `url` through `credentials` (sealed: siteVersion.ts). */
async function contextVersion(
	url: string,
	credentials: INodeCredentials = viaProxy,
	runner = ctx.runner,
): Promise<string> {
	const context = await runner.runNode({
		type: 'siteTenant',
		credentials,
		parameters: { resource: 'ai', operation: 'getPageContext', url: byUrl(url) },
	});
	expect(context.error).toBeUndefined();
	return context.items[0].json.version as string;
}

const apply = (
	proposal: Record<string, unknown>,
	parameters: Record<string, unknown> = {},
	credentials: INodeCredentials = viaProxy,
	runner = ctx.runner,
) =>
	runner.runNode({
		type: 'siteTenant',
		credentials,
		parameters: { resource: 'ai', operation: 'applyProposal', ...parameters },
		input: [{ json: { proposal } }],
	});

test('Get Page Context gives the version (updated_at, sealed); the prompt asks the model to give it back', async () => {
	const updatedAt = await freshPage(tenant, '/context');
	const result = await tenant.run({
		resource: 'ai',
		operation: 'getPageContext',
		url: byUrl('/context'),
	});
	expect(result.error).toBeUndefined();
	const version = result.items[0].json.version as string;
	expect(version).toMatch(new RegExp(`^${updatedAt.replace(/[.]/g, '\\.')}~[A-Za-z0-9_-]{22}$`));
	expect(result.items[0].json).toMatchObject({ updated_at: updatedAt });
	expect(result.items[0].json.prompt).toContain(`"version": ${JSON.stringify(version)}`);
	expect(result.items[0].json.prompt).toMatch(/Keep the url and the version as given/);
});

test('unchanged since the context: applied, with the precondition sent to the server', async () => {
	const version = await freshPage(tenant, '/unchanged');
	const sealed = await contextVersion('/unchanged');
	const result = await apply({ url: '/unchanged', version: sealed, templates: PROPOSED });
	expect(result.error).toBeUndefined();
	expect(result.items[0].json).toMatchObject({ url: '/unchanged', templates: PROPOSED });
	// version is no field of the content: it went as the precondition only.
	expect(sentBodies).toEqual([{ url: '/unchanged', templates: PROPOSED, if_updated_at: version }]);
	expect(result.items[0].json).not.toHaveProperty('ignoredFields');
	expect((await readPage(tenant.client, '/unchanged'))?.templates).toEqual(PROPOSED);
});

test('changed between the context and the apply: refused, saying what changed, nothing written', async () => {
	const version = await freshPage(tenant, '/changed');
	const edited = await edit(tenant, '/changed');
	// The version as Page Version (the model's answer without one), as the examples give it.
	const result = await apply(
		{ url: '/changed', templates: PROPOSED },
		{ pageVersion: version, url: byUrl('/changed') },
	);
	expect(result.error?.message).toBe(
		`The page changed since the proposal was made: /changed was last updated at ${edited}, not at ${version}. Nothing was written.`,
	);
	expect(result.error?.description).toContain('Get Page Context');
	expect(sentBodies).toEqual([]);
	expect(await readPage(tenant.client, '/changed')).toMatchObject({
		templates: EDIT,
		updated_at: edited,
	});
});

test("changed between the node's read and its write: the server's precondition refuses it (412)", async () => {
	const version = await freshPage(tenant, '/race');
	const sealed = await contextVersion('/race');
	let edited = '';
	beforeForward = async (method, path) => {
		// The node has read the page (unchanged); a person saves an edit just before its write lands.
		if (method === 'PUT' && path === '/api/content' && edited === '')
			edited = await edit(tenant, '/race');
	};
	const result = await apply({ url: '/race', version: sealed, templates: PROPOSED });
	expect(result.error?.message).toBe(
		`The page changed since the proposal was made: /race was last updated at ${edited}, not at ${version}. Nothing was written.`,
	);
	expect(sentBodies).toHaveLength(1);
	expect(await readPage(tenant.client, '/race')).toMatchObject({
		templates: EDIT,
		updated_at: edited,
	});
});

test('Dry Run says whether the page is still at the proposal version', async () => {
	const version = await freshPage(tenant, '/dry');
	const sealed = await contextVersion('/dry');
	const fresh = await apply(
		{ url: '/dry', version: sealed, templates: PROPOSED },
		{ dryRun: true },
	);
	expect(fresh.items[0].json.dryRun).toMatchObject({
		version: { proposal: version, page: version, unchanged: true },
	});
	const edited = await edit(tenant, '/dry');
	const stale = await apply(
		{ url: '/dry', version: sealed, templates: PROPOSED },
		{ dryRun: true },
	);
	expect(stale.items[0].json.dryRun).toMatchObject({
		version: { proposal: version, page: edited, unchanged: false },
	});
	expect(sentBodies).toEqual([]);
});

test('Require Page Version (on by default): a proposal without one fails the item, nothing sent', async () => {
	await freshPage(tenant, '/required');
	for (const parameters of [
		{ url: byUrl('/required') },
		{ url: byUrl('/required'), requireVersion: true },
	]) {
		const result = await apply({ url: '/required', templates: PROPOSED }, parameters);
		expect(result.error?.message).toBe(
			'The proposal has no page version from the site, and Require Page Version is on. Nothing was written.',
		);
		expect(result.error?.description).toMatch(/turn Require Page Version off/);
	}
	expect(proxy.log.filter((request) => request.path.includes('/required'))).toEqual([]);
	expect((await readPage(tenant.client, '/required'))?.templates).toEqual(ORIGINAL);
});

test('Continue On Fail: a stale proposal is an error item naming the change, the fresh one is applied', async () => {
	await freshPage(tenant, '/batch-stale');
	const staleVersion = await contextVersion('/batch-stale');
	await edit(tenant, '/batch-stale');
	await freshPage(tenant, '/batch-fresh');
	const freshVersion = await contextVersion('/batch-fresh');
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials: viaProxy,
		continueOnFail: true,
		parameters: { resource: 'ai', operation: 'applyProposal' },
		input: [
			{ json: { proposal: { url: '/batch-stale', version: staleVersion, templates: PROPOSED } } },
			{ json: { proposal: { url: '/batch-fresh', version: freshVersion, templates: PROPOSED } } },
		],
	});
	expect(result.items[0]).toMatchObject({
		json: { error: expect.stringContaining('The page changed since the proposal was made') },
		pairedItem: { item: 0 },
	});
	expect(result.items[1]).toMatchObject({
		json: { url: '/batch-fresh', templates: PROPOSED },
		pairedItem: { item: 1 },
	});
	expect((await readPage(tenant.client, '/batch-stale'))?.templates).toEqual(EDIT);
});

describe('Content > Update: Only If Unchanged Since', () => {
	const update = (url: string, ifUpdatedAt: string) =>
		ctx.runner.runNode({
			type: 'siteTenant',
			credentials: viaProxy,
			parameters: {
				resource: 'content',
				operation: 'update',
				url: byUrl(url),
				templates: JSON.stringify(PROPOSED),
				ifUpdatedAt,
			},
		});

	test('the version read: written; an older one: refused, nothing written', async () => {
		const version = await freshPage(tenant, '/content-update');
		const written = await update('/content-update', version);
		expect(written.error).toBeUndefined();
		expect(written.items[0].json).toMatchObject({ templates: PROPOSED });
		expect(sentBodies).toEqual([
			{ url: '/content-update', templates: PROPOSED, if_updated_at: version },
		]);

		const edited = await edit(tenant, '/content-update');
		const refused = await update('/content-update', version);
		expect(refused.error?.message).toBe(
			`The page changed since it was read: /content-update was last updated at ${edited}, not at ${version}. Nothing was written.`,
		);
		expect((await readPage(tenant.client, '/content-update'))?.templates).toEqual(EDIT);
	});

	test('empty: no check, the update is sent as before', async () => {
		await freshPage(tenant, '/content-plain');
		await edit(tenant, '/content-plain');
		const written = await update('/content-plain', '');
		expect(written.error).toBeUndefined();
		expect(sentBodies).toEqual([{ url: '/content-plain', templates: PROPOSED }]);
	});
});

describe('a service without the precondition (--no-extensions): read, compare, write', () => {
	let other: TenantContext;
	beforeAll(async () => {
		other = await plain.tenant('version-plain');
	});

	test('unchanged: applied (the update sent again without the field the service refused)', async () => {
		await freshPage(other, '/fallback');
		const version = await contextVersion('/fallback', other.credential, plain.runner);
		const result = await apply(
			{ url: '/fallback', version, templates: PROPOSED },
			{},
			other.credential,
			plain.runner,
		);
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ url: '/fallback', templates: PROPOSED });
		expect((await readPage(other.client, '/fallback'))?.templates).toEqual(PROPOSED);
	});

	test('changed since the proposal: refused by the compare, nothing written', async () => {
		const version = await freshPage(other, '/fallback-changed');
		const sealed = await contextVersion('/fallback-changed', other.credential, plain.runner);
		const edited = await edit(other, '/fallback-changed');
		const result = await apply(
			{ url: '/fallback-changed', version: sealed, templates: PROPOSED },
			{},
			other.credential,
			plain.runner,
		);
		expect(result.error?.message).toBe(
			`The page changed since the proposal was made: /fallback-changed was last updated at ${edited}, not at ${version}. Nothing was written.`,
		);
		expect(await readPage(other.client, '/fallback-changed')).toMatchObject({
			templates: EDIT,
			updated_at: edited,
		});
	});
});
