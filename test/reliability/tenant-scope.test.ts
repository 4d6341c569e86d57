/**
 * Tenant scope (issue 38), in n8n's engine against a real reference server: an item goes to the
 * tenant its credential allows and its data names, or nowhere. A Tenant expression that throws or
 * resolves empty fails its item (never the credential's tenant); a Managed Tenant credential's Tenant
 * ID or Allowed Tenants are a limit; list searches offer only the scope and reuse a token; Timeout
 * and Max Retries expressions are the item's own errors; a token lives a day at most.
 */
import type { IDataObject, INodeCredentials, INodeParameters } from 'n8n-workflow';

import { SitePageTrigger } from '../../nodes/SitePageTrigger/SitePageTrigger.node';
import { listSearch } from '../harness/list-search';
import type { AxiosInstance } from 'axios';

import {
	createPageOfItem,
	jsonOf,
	pageUrlsOf,
	seedPages,
	useNodeTestContext,
} from '../harness/nodes';
import { PollTriggerWorkflow } from '../harness/poll-trigger';

const ctx = useNodeTestContext();

const byId = (value: string) => ({ __rl: true, mode: 'id', value });

const createPage = createPageOfItem;
const urlsOf = async (tenant: { client: AxiosInstance }) => await pageUrlsOf(tenant.client);

function run(
	credentials: INodeCredentials,
	input: IDataObject[],
	parameters: INodeParameters,
	continueOnFail = true,
) {
	return ctx.runner.runNode({
		type: 'siteTenant',
		credentials,
		continueOnFail,
		input: input.map((json) => ({ json })),
		parameters: { authentication: 'managedTenant', ...createPage, ...parameters },
	});
}

describe('a Tenant parameter that cannot be resolved fails its item, never the credential tenant', () => {
	test('an expression that throws: the item fails, nothing reaches the credential tenant', async () => {
		const home = await ctx.tenant('home-throw');
		const other = await ctx.tenant('other-throw');
		const credentials = ctx.managedCredential('', {
			tenantScope: 'listed',
			allowedTenants: 'home-throw, other-throw',
			tenantId: 'home-throw',
		});
		// n8n reads a missing property as undefined (resolves empty); a missing node throws.
		const cases = [
			['={{ $json.site.id }}', /Tenant parameter resolved to nothing/],
			[
				'={{ $json.site ? $json.site.id : $("No Such Node").item.json.id }}',
				/Tenant parameter could not be resolved/,
			],
		] as const;
		for (const [index, [expression, message]] of cases.entries()) {
			const items = [{ site: { id: 'other-throw' }, url: `/with-site-${index}` }, { url: '/x' }];
			const result = await run(credentials, items, { tenant: byId(expression) });
			expect(result.error).toBeUndefined();
			const [ok, failed] = jsonOf(result.items);
			expect(ok.error).toBeUndefined();
			expect(String(failed.error)).toMatch(message);
		}
		expect(await urlsOf(other)).toEqual(['/with-site-0', '/with-site-1']);
		expect(await urlsOf(home)).toEqual([]);
	});

	test('an expression that resolves empty: the item fails; without Continue On Fail the node stops', async () => {
		const home = await ctx.tenant('home-empty');
		const credentials = ctx.managedCredential('home-empty');
		const parameters = { tenant: byId('={{ $json.tenant }}') };
		const items = [{ tenant: 'home-empty', url: '/named' }, { url: '/unnamed' }];
		const result = await run(credentials, items, parameters);
		expect(jsonOf(result.items).map((item) => String(item.error ?? 'ok'))).toEqual([
			'ok',
			expect.stringMatching(/Tenant parameter resolved to nothing/),
		]);
		expect(await urlsOf(home)).toEqual(['/named']);
		const stopped = await run(credentials, [{ url: '/stopped' }], parameters, false);
		expect(stopped.error?.message).toMatch(/resolved to nothing/);
		expect(await urlsOf(home)).toEqual(['/named']);
	});
});

describe("a Managed Tenant credential's scope is a limit", () => {
	test('One Tenant: a Tenant parameter naming another tenant fails the item', async () => {
		const acme = await ctx.tenant('acme-one');
		const victim = await ctx.tenant('victim-one');
		const credentials = ctx.managedCredential('acme-one');
		const result = await run(credentials, [{ url: '/x' }], { tenant: byId('victim-one') });
		expect(String(jsonOf(result.items)[0].error)).toMatch(
			/may not act on tenant "victim-one": it allows only tenant "acme-one"/,
		);
		expect(await urlsOf(victim)).toEqual([]);
		// Its own tenant, named or not, works.
		const own = await run(credentials, [{ url: '/own' }], {});
		expect(own.items[0].json.error).toBeUndefined();
		expect(await urlsOf(acme)).toEqual(['/own']);
	});

	/** Page > Create of each item on its `tenant` with a Listed Tenants credential: "ok" or the error. */
	const runListed = async (
		allowedTenants: string,
		items: Array<{ tenant: string; url: string }>,
	) => {
		const credentials = ctx.managedCredential('', { tenantScope: 'listed', allowedTenants });
		const result = await run(credentials, items, { tenant: byId('={{ $json.tenant }}') });
		return jsonOf(result.items).map((item) => String(item.error ?? 'ok'));
	};

	test('Listed Tenants: IDs and patterns; everything else fails its own item only', async () => {
		const a = await ctx.tenant('client-a');
		const b = await ctx.tenant('listed-b');
		const outside = await ctx.tenant('outside-c');
		const outcomes = await runListed('client-*\nlisted-b', [
			{ tenant: 'client-a', url: '/a' },
			{ tenant: 'outside-c', url: '/c' },
			{ tenant: 'listed-b', url: '/b' },
		]);
		expect(outcomes).toEqual([
			'ok',
			expect.stringMatching(
				/may not act on tenant "outside-c": it allows the tenants client-\*, listed-b/,
			),
			'ok',
		]);
		expect([await urlsOf(a), await urlsOf(b), await urlsOf(outside)]).toEqual([['/a'], ['/b'], []]);
	});

	test('"*" alone in Allowed Tenants allows no tenant and says to choose Any Tenant; other entries still count', async () => {
		const listed = await ctx.tenant('star-listed');
		const other = await ctx.tenant('star-other');
		const outcomes = await runListed('star-listed,\n * ', [
			{ tenant: 'star-other', url: '/o' },
			{ tenant: 'star-listed', url: '/l' },
		]);
		expect(outcomes).toEqual([
			'The Managed Tenant credential may not act on tenant "star-other": "*" alone in Allowed Tenants would allow every tenant, so it allows none. Choose Tenant Scope "Any Tenant" to act on every tenant',
			'ok',
		]);
		expect([await urlsOf(listed), await urlsOf(other)]).toEqual([['/l'], []]);
	});

	test('a credential saved without a scope and without a Tenant ID reaches no tenant', async () => {
		const site = await ctx.tenant('no-scope');
		const credentials = ctx.managedCredential('');
		const result = await run(credentials, [{ url: '/x' }], { tenant: byId('no-scope') });
		expect(String(jsonOf(result.items)[0].error)).toMatch(/it allows no tenant/);
		expect(await urlsOf(site)).toEqual([]);
	});
});

describe('list searches respect the scope', () => {
	const search = (credentials: INodeCredentials, method: string, parameters: INodeParameters) =>
		listSearch(ctx.runner, {
			type: 'siteTenant',
			method,
			parameters: { authentication: 'managedTenant', ...parameters },
			credentials,
		});

	test("tenants: One Tenant offers its own only; Listed Tenants the listed; another's pages are refused", async () => {
		await ctx.tenant('scope-list-a');
		const victim = await ctx.tenant('scope-list-victim');
		await seedPages(victim.client, [{ url: '/private-draft', draft: true }]);
		const one = ctx.managedCredential('scope-list-a');
		const offered = await search(one, 'searchTenants', {});
		expect(offered.results.map((result) => result.value)).toEqual(['scope-list-a']);

		const listed = ctx.managedCredential('', {
			tenantScope: 'listed',
			allowedTenants: 'scope-list-a',
		});
		const listedOffer = await search(listed, 'searchTenants', {});
		expect(listedOffer.results.map((result) => result.value)).toEqual(['scope-list-a']);

		await expect(search(one, 'searchPages', { tenant: byId('scope-list-victim') })).rejects.toThrow(
			/may not act on tenant "scope-list-victim"/,
		);
		await expect(
			search(one, 'searchVariables', { tenant: byId('scope-list-victim') }),
		).rejects.toThrow(/may not act on tenant "scope-list-victim"/);
	});

	test('searches while typing share one token per credential scope', async () => {
		const site = await ctx.tenant('scope-typing');
		await seedPages(site.client, [{ url: '/typed' }]);
		const credentials = ctx.managedCredential('scope-typing');
		const before = ctx.site.tokensIssued('scope-typing');
		for (const filter of ['t', 'ty', 'typ', 'type']) {
			const found = await listSearch(ctx.runner, {
				type: 'siteTenant',
				method: 'searchPages',
				parameters: { authentication: 'managedTenant' },
				credentials,
				filter,
			});
			expect(found.results.map((result) => result.value)).toEqual(['/typed']);
		}
		expect(ctx.site.tokensIssued('scope-typing')).toBe(before + 1);
	});
});

describe('Timeout and Max Retries: an expression error is the item error', () => {
	test.each([
		[
			'timeout-throws',
			{ timeout: '={{ $("No Such Node").item.json.timeout }}' },
			/Referenced node/,
		],
		['timeout-nan', { timeout: '={{ "soon" }}' }, /Timeout must be a number/],
		['retries-throws', { maxRetries: '={{ $("No Such Node").item.json.n }}' }, /Referenced node/],
		['retries-half', { maxRetries: '={{ 1.5 }}' }, /Max Retries must be a whole number/],
	])('%s', async (name, options, message) => {
		const site = await ctx.tenant(`limits-${name}`);
		const credentials = ctx.managedCredential(site.id);
		const result = await run(credentials, [{ url: '/limited' }], { options });
		expect(String(jsonOf(result.items)[0].error)).toMatch(message);
		expect(await urlsOf(site)).toEqual([]);
	});
});

describe('the Page Trigger watches one tenant within the scope', () => {
	test("a Tenant ID outside the credential's scope fails the poll", async () => {
		const site = await ctx.tenant('trigger-outside');
		const credentials = ctx.managedCredential('trigger-outside', {
			tenantScope: 'listed',
			allowedTenants: 'client-*',
		});
		const workflow = new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
			type: 'sitePageTrigger',
			parameters: { authentication: 'managedTenant', events: ['pagePublished'] },
			credentials,
		});
		const activated = await workflow.activate();
		expect(activated.error?.message).toMatch(/may not act on tenant "trigger-outside"/);
		expect(ctx.site.tokensIssued(site.id)).toBe(1);
	});
});

test('Token Lifetime is a day at most, whatever the credential says', async () => {
	const site = await ctx.tenant('lifetime-cap');
	const credentials = ctx.managedCredential('lifetime-cap', { lifetime: 10 * 365 * 86_400 });
	const started = Date.now();
	const result = await run(credentials, [{ url: '/capped' }], {});
	expect(result.items[0].json.error).toBeUndefined();
	const row = ctx.site.server.app.site.store.db
		.prepare<[string], { expires_at: string }>(
			'SELECT t.expires_at FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk WHERE tn.id = ? AND t.expires_at IS NOT NULL',
		)
		.get(site.id);
	expect(Date.parse(String(row?.expires_at)) - started).toBeLessThanOrEqual(86_400_000 + 60_000);
});
