/**
 * Every item on the tenant it names (n8n's engine, real reference servers). n8n resolves expressions
 * in credential fields per item; the nodes read the credential for each item, mint a managed token
 * per tenant and run (never reused for another tenant or host), and take the tenant from the Tenant
 * node's Tenant parameter when the Managed Tenant credential leaves it empty.
 */
import http from 'http';
import { createHash } from 'crypto';
import type { AddressInfo } from 'net';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { SitePageTrigger } from '../../nodes/SitePageTrigger/SitePageTrigger.node';
import { readSettings, useContactFormContext, writeSettings } from '../harness/contact-form';
import { listSearch } from '../harness/list-search';
import {
	createPageOfItem,
	credentialId,
	expectNoSecrets,
	jsonOf,
	pageUrlsOf,
	seedPages,
	useNodeTestContext,
} from '../harness/nodes';
import { sourceRegistry } from '../harness/item-source.node';
import { PollTriggerWorkflow } from '../harness/poll-trigger';
import { managedCredentialData, startTestSite, type TestSite } from '../harness/reference-server';

const ctx = useNodeTestContext();

/** The tenant parameter as the editor saves it: By ID with an expression. */
const tenantById = (value: string) => ({ __rl: true, mode: 'id', value });

/** Items alternating the given tenants, each naming its tenant and a url of its own. */
function alternating(
	tenants: string[],
	count: number,
	extra: (tenant: string) => IDataObject = () => ({}),
) {
	return Array.from({ length: count }, (_, index) => {
		const tenant = tenants[index % tenants.length];
		return { json: { tenant, url: `/item-${index}`, ...extra(tenant) } };
	});
}

const urlsOf = pageUrlsOf;
const createPage = createPageOfItem;

describe('the Managed Tenant credential with a per-item Tenant ID', () => {
	test('8 creates alternating two tenants at the default window: 4 pages on each, one token each', async () => {
		const a = await ctx.tenant('item-a');
		const b = await ctx.tenant('item-b');
		const issuedBefore = [ctx.site.tokensIssued('item-a'), ctx.site.tokensIssued('item-b')];
		const credentials = ctx.managedCredential('={{ $json.tenant }}');
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: alternating(['item-a', 'item-b'], 8),
			parameters: { authentication: 'managedTenant', ...createPage },
		});
		expect(result.error).toBeUndefined();
		expect(await urlsOf(a.client)).toEqual(['/item-0', '/item-2', '/item-4', '/item-6']);
		expect(await urlsOf(b.client)).toEqual(['/item-1', '/item-3', '/item-5', '/item-7']);
		expect([ctx.site.tokensIssued('item-a'), ctx.site.tokensIssued('item-b')]).toEqual([
			issuedBefore[0] + 1,
			issuedBefore[1] + 1,
		]);
		// n8n's stored credential keeps no token and no resolved tenant: the expression stays.
		const stored = ctx.runner.credentials.read(credentialId(credentials));
		expect(stored.accessToken).toBe('');
		expect(stored.tenantId).toBe('={{ $json.tenant }}');
		expectNoSecrets(result.run, [ctx.site.adminToken, a.token, b.token]);
	});
});

describe('every output item says its tenant (tenant_id), errors too (issue 39)', () => {
	test('items of two tenants: each output carries the tenant it was sent to; a failed item names its own', async () => {
		await ctx.tenant('says-a');
		const b = await ctx.tenant('says-b');
		expect(
			(await b.client.post('/api/page', { name: 'Taken', url: '/item-1', locale: 'en' })).status,
		).toBe(201);
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials: ctx.managedCredential('={{ $json.tenant }}'),
			input: alternating(['says-a', 'says-b'], 4),
			parameters: { authentication: 'managedTenant', ...createPage },
			onError: 'continueErrorOutput',
		});
		expect(result.error).toBeUndefined();
		const [success, failed] = result.outputs;
		expect(success.map((item) => [item.json.tenant_id, item.json.url])).toEqual([
			['says-a', '/item-0'],
			['says-a', '/item-2'],
			['says-b', '/item-3'],
		]);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toMatchObject({ tenant: 'says-b', operation: 'Page > Create' });
	});
});

describe('the Tenant Token credential with a per-item token', () => {
	test('8 creates alternating two tokens: 4 pages on each tenant', async () => {
		const a = await ctx.tenant('token-a');
		const b = await ctx.tenant('token-b');
		const tokens: Record<string, string> = { 'token-a': a.token, 'token-b': b.token };
		const credentials = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: '={{ $json.token }}',
		});
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: alternating(['token-a', 'token-b'], 8, (tenant) => ({ token: tokens[tenant] })),
			parameters: { authentication: 'tenantToken', ...createPage },
		});
		expect(result.error).toBeUndefined();
		expect(await urlsOf(a.client)).toEqual(['/item-0', '/item-2', '/item-4', '/item-6']);
		expect(await urlsOf(b.client)).toEqual(['/item-1', '/item-3', '/item-5', '/item-7']);
	});
});

describe('one admin credential for any tenant: Any Tenant scope, the node names the tenant', () => {
	const anyTenant = () => ctx.managedCredential('', { tenantScope: 'any' });

	const run = (
		credentials: ReturnType<typeof anyTenant>,
		tenants: string[],
		count: number,
		parameters: INodeParameters,
		continueOnFail = false,
	) =>
		ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			continueOnFail,
			input: alternating(tenants, count),
			parameters: {
				authentication: 'managedTenant',
				tenant: tenantById('={{ $json.tenant }}'),
				...parameters,
			},
		});

	test('every resource acts on the tenant of its item, one token per tenant and run', async () => {
		const sites = await Promise.all(['any-a', 'any-b', 'any-c'].map((id) => ctx.tenant(id)));
		const ids = sites.map((site) => site.id);
		const credentials = anyTenant();
		const issued = () => ids.map((id) => ctx.site.tokensIssued(id));
		const before = issued();

		const created = await run(credentials, ids, 9, createPage);
		expect(created.error).toBeUndefined();
		expect(issued()).toEqual(before.map((count) => count + 1));
		for (const [index, site] of sites.entries()) {
			expect(await urlsOf(site.client)).toEqual(
				[0, 1, 2].map((round) => `/item-${round * 3 + index}`).sort(),
			);
		}

		const settings = await run(credentials, ids, 3, {
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: '={{ "G-" + $json.tenant }}' },
		});
		expect(settings.error).toBeUndefined();
		const notified = await run(credentials, ids, 3, {
			resource: 'notification',
			operation: 'send',
			notificationId: '={{ "job-" + $json.tenant }}',
			message: '={{ "Hello " + $json.tenant }}',
			status: 'info',
		});
		expect(notified.error).toBeUndefined();
		const variables = await run(credentials, ids, 3, {
			resource: 'variable',
			operation: 'set',
			key: 'owner',
			value: '={{ $json.tenant }}',
		});
		expect(variables.error).toBeUndefined();
		const sitemaps = await run(credentials, ids, 3, { resource: 'sitemap', operation: 'get' });
		expect(sitemaps.error).toBeUndefined();
		expect(jsonOf(sitemaps.items).map((item) => item.tenant_id)).toEqual(ids);
		expect(jsonOf(sitemaps.items).map((item) => (item.pages as IDataObject[]).length)).toEqual([
			3, 3, 3,
		]);

		for (const site of sites) {
			const read = await site.client.get('/api/settings');
			expect(read.data.settings.google_code).toBe(`G-${site.id}`);
			const variable = await site.client.get('/api/variables');
			expect(variable.data.data).toEqual([{ key: 'owner', value: site.id }]);
		}
		// One mint per tenant for each of the five runs.
		expect(issued()).toEqual(before.map((count) => count + 5));
	});

	test("Setting > Update reads, then writes, on its item's tenant with one read of the credential per item", async () => {
		const sites = await Promise.all(['twice-a', 'twice-b'].map((id) => ctx.tenant(id)));
		const ids = sites.map((site) => site.id);
		for (const site of sites)
			expect(
				(await site.client.post('/api/settings', { google_code: `OLD-${site.id}` })).status,
			).toBe(200);
		const credentials = anyTenant();
		const id = credentialId(credentials);
		const reads = ctx.runner.credentials.reads.get(id) ?? 0;
		// One item after the other, so that each item's read sees what the items before it wrote.
		const result = await run(credentials, ids, 4, {
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: '={{ "NEW-" + $json.tenant }}' },
			options: { concurrency: 1 },
		});
		expect(result.error).toBeUndefined();
		// Each item's GET and POST went to its own tenant: the previous value it read is that tenant's.
		expect(
			jsonOf(result.items).map((item) => [
				item.tenant_id,
				(item.previous as IDataObject).google_code,
			]),
		).toEqual([
			['twice-a', 'OLD-twice-a'],
			['twice-b', 'OLD-twice-b'],
			['twice-a', undefined],
			['twice-b', undefined],
		]);
		for (const site of sites)
			expect((await site.client.get('/api/settings')).data.settings.google_code).toBe(
				`NEW-${site.id}`,
			);
		// Two requests per item, one credential read per item (n8n resolves it per item, not per request).
		expect((ctx.runner.credentials.reads.get(id) ?? 0) - reads).toBe(4);
	});

	test('a tenant that does not exist fails only its own items (Continue On Fail)', async () => {
		const a = await ctx.tenant('cof-a');
		const b = await ctx.tenant('cof-b');
		const credentials = anyTenant();
		const result = await run(credentials, ['cof-a', 'cof-missing', 'cof-b'], 9, createPage, true);
		expect(result.error).toBeUndefined();
		const outputs = jsonOf(result.items);
		expect(outputs).toHaveLength(9);
		outputs.forEach((output, index) => {
			if (index % 3 === 1) expect(String(output.error)).toMatch(/cof-missing/);
			else expect(output.error).toBeUndefined();
		});
		expect(await urlsOf(a.client)).toEqual(['/item-0', '/item-3', '/item-6']);
		expect(await urlsOf(b.client)).toEqual(['/item-2', '/item-5', '/item-8']);
	});

	test('a tenant deleted between runs fails with the service message; without Continue On Fail the node stops', async () => {
		await ctx.tenant('gone-a');
		const credentials = anyTenant();
		expect((await run(credentials, ['gone-a'], 1, createPage)).error).toBeUndefined();
		expect((await ctx.site.admin.delete('/api/tenant', { data: { id: 'gone-a' } })).status).toBe(
			200,
		);
		const result = await run(credentials, ['gone-a'], 2, {
			...createPage,
			url: '={{ $json.url + "-again" }}',
		});
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(/gone-a/);
		expectNoSecrets(result.run, [ctx.site.adminToken]);
	});

	test('no tenant anywhere: the item fails naming both places a tenant can be given', async () => {
		const credentials = anyTenant();
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: { authentication: 'managedTenant', resource: 'page', operation: 'getAll' },
		});
		expect(result.error?.message).toMatch(
			/node names none and the Managed Tenant credential's Tenant ID is empty/,
		);
		expect(result.error?.description).toMatch(/Tenant parameter/);
	});

	test('From List: tenants through the Admin API; the page list follows the chosen tenant', async () => {
		const a = await ctx.tenant('list-alpha');
		await ctx.tenant('list-beta');
		await seedPages(a.client, [{ url: '/alpha-home', name: 'Alpha home' }]);
		const credentials = anyTenant();
		const tenants = await listSearch(ctx.runner, {
			type: 'siteTenant',
			method: 'searchTenants',
			parameters: { authentication: 'managedTenant' },
			credentials,
			filter: 'list-',
		});
		expect(tenants.results.map((result) => result.value)).toEqual(['list-alpha', 'list-beta']);

		const pages = await listSearch(ctx.runner, {
			type: 'siteTenant',
			method: 'searchPages',
			parameters: {
				authentication: 'managedTenant',
				tenant: { __rl: true, mode: 'list', value: 'list-alpha' },
			},
			credentials,
		});
		expect(pages.results.map((result) => result.value)).toEqual(['/alpha-home']);
	});
});

describe('a service without the tenant list', () => {
	let bare: http.Server;
	let bareUrl: string;
	beforeAll(async () => {
		bare = http.createServer((_request, response) => {
			response.writeHead(404, { 'content-type': 'application/json' });
			response.end('{"error":"not_found","message":"Route not found."}');
		});
		await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
		bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
	});
	afterAll(async () => await new Promise((resolve) => bare.close(resolve)));

	test('From List says to name the tenant By ID', async () => {
		const credentials = ctx.managedCredential('', { adminBaseUrl: bareUrl, tenantScope: 'any' });
		await expect(
			listSearch(ctx.runner, {
				type: 'siteTenant',
				method: 'searchTenants',
				parameters: { authentication: 'managedTenant' },
				credentials,
			}),
		).rejects.toThrow(/cannot list its tenants: name the tenant By ID/);
	});
});

describe('an edited credential acts on its new tenant and host from the next run on', () => {
	let other: TestSite;
	beforeAll(async () => {
		other = await startTestSite();
	});
	afterAll(async () => await other.close());

	test('Tenant ID, Tenant Base URL and Admin Base URL edited between two runs', async () => {
		const a = await ctx.tenant('edit-a');
		const b = await ctx.tenant('edit-b');
		const elsewhere = await other.createTenant('edit-far');
		const credentials = ctx.managedCredential('edit-a');
		const id = credentialId(credentials);
		const runCreate = async (url: string) =>
			await ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				input: [{ json: { url } }],
				parameters: { authentication: 'managedTenant', ...createPage },
			});

		expect((await runCreate('/first')).error).toBeUndefined();
		ctx.runner.credentials.update(id, { tenantId: 'edit-b' });
		expect((await runCreate('/second')).error).toBeUndefined();
		ctx.runner.credentials.update(id, {
			adminBaseUrl: other.url,
			adminToken: other.adminToken,
			baseUrl: other.url,
			tenantId: 'edit-far',
		});
		expect((await runCreate('/third')).error).toBeUndefined();

		expect(await urlsOf(a.client)).toEqual(['/first']);
		expect(await urlsOf(b.client)).toEqual(['/second']);
		expect(await urlsOf(elsewhere.client)).toEqual(['/third']);
	});

	test('a new Tenant Base URL is never sent a token minted before the edit', async () => {
		await ctx.tenant('edit-host');
		const seen: string[] = [];
		const capture = http.createServer((request, response) => {
			seen.push(String(request.headers.authorization ?? '').replace(/^Bearer /, ''));
			response.writeHead(401, { 'content-type': 'application/json' });
			response.end('{"error":"unauthorized","message":"Unknown token."}');
		});
		await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
		try {
			const credentials = ctx.managedCredential('edit-host');
			const list = () =>
				ctx.runner.runNode({
					type: 'siteTenant',
					credentials,
					parameters: { authentication: 'managedTenant', resource: 'page', operation: 'getAll' },
				});
			expect((await list()).error).toBeUndefined();
			const mintedBefore = tokenHashes(ctx.site, 'edit-host');
			ctx.runner.credentials.update(credentialId(credentials), {
				baseUrl: `http://127.0.0.1:${(capture.address() as AddressInfo).port}`,
			});
			const after = await list();
			expect(after.error?.message).toMatch(/Unknown token/);
			expect(seen.length).toBeGreaterThan(0);
			for (const token of seen) {
				expect(mintedBefore).not.toContain(createHash('sha256').update(token).digest('hex'));
			}
		} finally {
			await new Promise((resolve) => capture.close(resolve));
		}
	});
});

describe('the Admin node with a per-item admin credential', () => {
	let other: TestSite;
	beforeAll(async () => {
		other = await startTestSite();
	});
	afterAll(async () => await other.close());

	test('items alternating two services create each tenant on its own service', async () => {
		const servers = [ctx.site, other];
		const credentials = ctx.runner.credentials.add('siteAdminApi', {
			baseUrl: '={{ $json.server }}',
			token: '={{ $json.adminToken }}',
		});
		const result = await ctx.runner.runNode({
			type: 'siteAdmin',
			credentials,
			input: [0, 1, 2, 3].map((index) => ({
				json: {
					id: `admin-item-${index}`,
					server: servers[index % 2].url,
					adminToken: servers[index % 2].adminToken,
				},
			})),
			parameters: { resource: 'tenant', operation: 'create', id: '={{ $json.id }}' },
		});
		expect(result.error).toBeUndefined();
		const exists = async (site: TestSite, id: string) =>
			(await site.admin.post('/api/tenant/token', { id, expires_in: 60 })).status === 200;
		expect(await exists(ctx.site, 'admin-item-0')).toBe(true);
		expect(await exists(other, 'admin-item-1')).toBe(true);
		expect(await exists(ctx.site, 'admin-item-1')).toBe(false);
		expect(await exists(other, 'admin-item-0')).toBe(false);
	});
});

describe('the Site Management Trigger watches the tenant its credential names now', () => {
	test('each item names its tenant; an edit to another tenant starts afresh there', async () => {
		const a = await ctx.tenant('watch-a');
		const b = await ctx.tenant('watch-b');
		await seedPages(a.client, [{ url: '/a-only' }]);
		await seedPages(b.client, [{ url: '/b-1' }, { url: '/b-2' }]);
		const credentials = ctx.managedCredential('watch-a');
		const workflow = new PollTriggerWorkflow(ctx.runner, () => new SitePageTrigger(), {
			type: 'sitePageTrigger',
			parameters: { authentication: 'managedTenant', events: ['pagePublished', 'pageRemoved'] },
			credentials,
		});
		await workflow.activate();
		await seedPages(a.client, [{ url: '/a-new' }]);
		const onA = await workflow.poll();
		expect(jsonOf(onA.items ?? [])).toEqual([
			expect.objectContaining({ event: 'pagePublished', url: '/a-new', tenant_id: 'watch-a' }),
		]);

		ctx.runner.credentials.update(credentialId(credentials), { tenantId: 'watch-b' });
		// The first poll on B only learns where B stands: B's pages are not "published", A's not "removed".
		const switched = await workflow.poll();
		expect(switched.error).toBeUndefined();
		expect(switched.items).toBeNull();
		await seedPages(b.client, [{ url: '/b-new' }]);
		const onB = await workflow.poll();
		expect(jsonOf(onB.items ?? [])).toEqual([
			expect.objectContaining({
				event: 'pagePublished',
				url: '/b-new',
				tenant_id: 'watch-b',
				site: ctx.site.url,
			}),
		]);
	});
});

/** sha256 of every token the tenant was issued so far. */
function tokenHashes(site: TestSite, tenantId: string): string[] {
	return (
		site.server.app.site.store.db
			.prepare(
				'SELECT token_hash FROM tokens JOIN tenants ON tokens.tenant_pk = tenants.pk WHERE tenants.id = ?',
			)
			.all(tenantId) as Array<{ token_hash: string }>
	).map((row) => row.token_hash);
}

describe('the Contact Form Trigger registers with the tenant its credential names now', () => {
	const forms = useContactFormContext();

	test('published after an edit from tenant A to B: B gets the URL, A keeps its own receiver', async () => {
		const a = await forms.tenant('register-a');
		const b = await forms.tenant('register-b');
		const credential = forms.harness.credentials.add(
			'siteManagedTenantApi',
			managedCredentialData(forms.site, a.id),
		);
		const trigger = forms.trigger({ authentication: 'managedTenant' }, credential);
		expect(await trigger.activate()).toBe(true);
		expect((await readSettings(a)).contact_form_webhook_url).toBe(trigger.productionUrl);
		expect(await trigger.deactivate()).toBe(true);

		// A's owner points A at a receiver of their own; the credential is moved to B.
		const ownReceiver = 'http://127.0.0.1:9/a-own-receiver';
		await writeSettings(a, { contact_form_webhook_url: ownReceiver });
		forms.harness.credentials.update(credentialId(credential), { tenantId: b.id });

		expect(await trigger.activate()).toBe(true);
		expect((await readSettings(b)).contact_form_webhook_url).toBe(trigger.productionUrl);
		expect((await readSettings(a)).contact_form_webhook_url).toBe(ownReceiver);
		expect(await trigger.deactivate()).toBe(true);
		expect((await readSettings(b)).contact_form_webhook_url).toBeNull();
		expect((await readSettings(a)).contact_form_webhook_url).toBe(ownReceiver);
	});
});

describe('a mint that fails is shared, not repeated by every waiting request', () => {
	test('32 items against an Admin API answering 503: one mint per attempt, not one per item', async () => {
		let mints = 0;
		const admin = http.createServer((request, response) => {
			if (request.url === '/api/tenant/token') mints++;
			response.writeHead(503, { 'content-type': 'application/json' });
			response.end('{"error":"unavailable","message":"Down for a moment."}');
		});
		await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve));
		try {
			const credentials = ctx.managedCredential('mint-down', {
				adminBaseUrl: `http://127.0.0.1:${(admin.address() as AddressInfo).port}`,
			});
			const result = await ctx.runner.runNode({
				type: 'siteTenant',
				credentials,
				continueOnFail: true,
				input: Array.from({ length: 32 }, (_, index) => ({ json: { url: `/down-${index}` } })),
				parameters: {
					authentication: 'managedTenant',
					...createPage,
					options: { maxRetries: 0 },
				},
			});
			expect(jsonOf(result.items)).toHaveLength(32);
			for (const item of jsonOf(result.items))
				expect(String(item.error)).toMatch(/503|tenant token/);
			expect(mints).toBe(1);
		} finally {
			await new Promise((resolve) => admin.close(resolve));
		}
	});
});

describe('one token per tenant and execution, across the nodes of the execution', () => {
	test('two Tenant nodes in one execution, items alternating two tenants: one token per tenant', async () => {
		const a = await ctx.tenant('flow-a');
		const b = await ctx.tenant('flow-b');
		const before = [ctx.site.tokensIssued('flow-a'), ctx.site.tokensIssued('flow-b')];
		const credentials = ctx.managedCredential('', {
			tenantScope: 'listed',
			allowedTenants: 'flow-*',
		});
		const key = `flow-${Date.now()}`;
		sourceRegistry.set(key, alternating(['flow-a', 'flow-b'], 6));
		const tenantNode = (name: string, x: number, parameters: INodeParameters) => ({
			id: name,
			name,
			type: 'siteTenant',
			typeVersion: 1,
			position: [x, 0] as [number, number],
			credentials,
			parameters: {
				authentication: 'managedTenant',
				tenant: tenantById('={{ $("Source").item.json.tenant }}'),
				...parameters,
			},
		});
		const run = await ctx.runner.runWorkflow(
			[
				{
					id: 'source',
					name: 'Source',
					type: 'test.itemSource',
					typeVersion: 1,
					position: [0, 0],
					parameters: { key },
				},
				tenantNode('Create', 200, createPage),
				tenantNode('Notify', 400, {
					resource: 'notification',
					operation: 'send',
					notificationId: '={{ "page-" + $("Source").item.json.url }}',
					message: 'A page was created',
					status: 'info',
				}),
			],
			{
				Source: { main: [[{ node: 'Create', type: 'main', index: 0 }]] },
				Create: { main: [[{ node: 'Notify', type: 'main', index: 0 }]] },
			},
		);
		expect(run.data.resultData.error).toBeUndefined();
		expect(run.data.resultData.runData.Notify[0].data?.main[0]).toHaveLength(6);
		expect(await urlsOf(a.client)).toEqual(['/item-0', '/item-2', '/item-4']);
		expect(await urlsOf(b.client)).toEqual(['/item-1', '/item-3', '/item-5']);
		// Two nodes, two tenants, one execution: one token per tenant.
		expect([ctx.site.tokensIssued('flow-a'), ctx.site.tokensIssued('flow-b')]).toEqual([
			before[0] + 1,
			before[1] + 1,
		]);
		expectNoSecrets(run, [ctx.site.adminToken, a.token, b.token]);
	});
});
