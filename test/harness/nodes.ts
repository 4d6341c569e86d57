/**
 * What every node test file needs: a reference server of its own, a WorkflowRunner with both nodes
 * and all three credential types, and a few helpers to look at the server directly.
 */
import type { AxiosInstance } from 'axios';
import type {
	ICredentialDataDecryptedObject,
	INodeCredentials,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import { SiteAdminApi } from '../../credentials/SiteAdminApi.credentials';
import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';
import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import { SiteAdmin } from '../../nodes/SiteAdmin/SiteAdmin.node';
import { SiteTenant } from '../../nodes/SiteTenant/SiteTenant.node';
import type { ServerOptions } from '../../reference-server/src';
import { WorkflowRunner, type NodeRunResult, type RunNodeOptions } from './workflow-runner';
import {
	managedCredentialData,
	startTestSite,
	type TestSite,
	type TestTenant,
} from './reference-server';

const credentialTypes = () => [new SiteAdminApi(), new SiteTenantApi(), new SiteManagedTenantApi()];

export function createRunner(extraNodes: Record<string, INodeType> = {}): WorkflowRunner {
	return new WorkflowRunner(
		{ siteAdmin: new SiteAdmin(), siteTenant: new SiteTenant(), ...extraNodes },
		credentialTypes(),
	);
}

/** The id of the single credential in a node's `credentials` reference. */
export function credentialId(reference: INodeCredentials): string {
	const [details] = Object.values(reference);
	if (!details?.id) throw new Error('credential reference without id');
	return details.id;
}

interface NodeTestContext {
	site: TestSite;
	runner: WorkflowRunner;
	/** `siteAdminApi` credential with the server's admin token. */
	adminCredential: INodeCredentials;
	adminNode(
		parameters: RunNodeOptions['parameters'],
		extra?: Partial<RunNodeOptions>,
	): Promise<NodeRunResult>;
	/** Creates a tenant with a token, plus a `siteTenantApi` credential and a node runner bound to it. */
	tenant(id: string): Promise<TenantContext>;
	/** A `siteManagedTenantApi` credential on this server (managedCredentialData) for `tenantId`. */
	managedCredential(tenantId: string, overrides?: ICredentialDataDecryptedObject): INodeCredentials;
}

export interface TenantContext extends TestTenant {
	credential: INodeCredentials;
	/** Runs the Tenant node with the tenant-token credential. */
	run(
		parameters: RunNodeOptions['parameters'],
		extra?: Partial<RunNodeOptions>,
	): Promise<NodeRunResult>;
}

/**
 * Starts a server for the test file (beforeAll) and closes it (afterAll). Use the returned object's
 * fields inside tests only (they are filled in beforeAll).
 */
export function useNodeTestContext(
	options: Partial<ServerOptions> = {},
	extraNodes: Record<string, INodeType> = {},
): NodeTestContext {
	const context = {} as NodeTestContext;
	beforeAll(async () => {
		const site = await startTestSite(options);
		const runner = createRunner(extraNodes);
		const adminCredential = runner.credentials.add('siteAdminApi', {
			baseUrl: site.url,
			token: site.adminToken,
		});
		Object.assign(context, {
			site,
			runner,
			adminCredential,
			adminNode: async (
				parameters: RunNodeOptions['parameters'],
				extra: Partial<RunNodeOptions> = {},
			) =>
				await runner.runNode({
					type: 'siteAdmin',
					parameters,
					credentials: adminCredential,
					...extra,
				}),
			managedCredential: (tenantId: string, overrides: ICredentialDataDecryptedObject = {}) =>
				runner.credentials.add(
					'siteManagedTenantApi',
					managedCredentialData(site, tenantId, overrides),
				),
			tenant: async (id: string) => {
				const tenant = await site.createTenant(id);
				const credential = runner.credentials.add('siteTenantApi', {
					baseUrl: site.url,
					token: tenant.token,
				});
				return {
					...tenant,
					credential,
					run: async (
						parameters: RunNodeOptions['parameters'],
						extra: Partial<RunNodeOptions> = {},
					) =>
						await runner.runNode({
							type: 'siteTenant',
							parameters,
							credentials: credential,
							...extra,
						}),
				};
			},
		});
	});
	afterAll(async () => {
		await context.site?.close();
	});
	return context;
}

/** Page > Create of the item's own `url` (named after it), for tests of where items land. */
export const createPageOfItem = {
	resource: 'page',
	operation: 'create',
	name: '={{ "Page " + $json.url }}',
	url: '={{ $json.url }}',
	locale: 'en',
};

/** The urls of a tenant's live pages, sorted. */
export const pageUrlsOf = async (client: AxiosInstance) =>
	(await listPages(client)).map((page) => page.url).sort();

/** All pages the server lists for a tenant (live pages; filters as query parameters). */
export async function listPages(client: AxiosInstance, query: Record<string, string> = {}) {
	const pages: Array<Record<string, unknown>> = [];
	for (let page = 1; ; page++) {
		const response = await client.get('/api/pages', { params: { ...query, page, per_page: 100 } });
		if (response.status !== 200)
			throw new Error(`GET /api/pages: ${response.status} ${JSON.stringify(response.data)}`);
		pages.push(...response.data.data);
		if (page >= response.data.meta.last_page) return pages;
	}
}

/** One page as the server has it, or undefined. */
export async function readPage(client: AxiosInstance, url: string) {
	const pages = await listPages(client, { url });
	return pages.find((page) => page.url === url);
}

/** Creates pages straight on the server (setup data, not the subject of a test). */
export async function seedPages(
	client: AxiosInstance,
	pages: Array<{ url: string; name?: string; locale?: string; draft?: boolean }>,
	concurrency = 10,
) {
	for (let start = 0; start < pages.length; start += concurrency) {
		await Promise.all(
			pages.slice(start, start + concurrency).map(async (page) => {
				const response = await client.post('/api/page', {
					name: page.name ?? page.url,
					locale: page.locale ?? 'en',
					...page,
				});
				if (response.status !== 201)
					throw new Error(`seed ${page.url}: ${response.status} ${JSON.stringify(response.data)}`);
			}),
		);
	}
}

/**
 * Custom API Call parameters that look up the page `<prefix><$json.i>` through the delay proxy
 * (delay-proxy.ts), held back `$json.delay` ms: items whose answers come back in any order.
 */
export function delayedPageLookup(prefix: string) {
	return {
		resource: 'customApiCall',
		operation: 'call',
		method: 'GET',
		path: '/api/pages',
		queryParameters: {
			parameter: [
				{ name: 'url', value: `={{ "${prefix}" + $json.i }}` },
				{ name: 'delay', value: '={{ $json.delay }}' },
				// Directives of test/harness/delay-proxy.ts, empty (ignored) unless the item sets them.
				{ name: 'gather', value: '={{ $json.gather ?? "" }}' },
				{ name: 'hold', value: '={{ $json.hold ?? "" }}' },
			],
		},
	};
}

export const jsonOf = (items: INodeExecutionData[]) => items.map((item) => item.json);

/** Throws when any of the secrets appears anywhere in the value (serialised as JSON, and in errors). */
export function expectNoSecrets(value: unknown, secrets: string[]) {
	const seen = new WeakSet<object>();
	const text = JSON.stringify(value, (_key, entry: unknown) => {
		if (typeof entry === 'object' && entry !== null) {
			if (seen.has(entry)) return '[circular]';
			seen.add(entry);
		}
		if (entry instanceof Error) {
			// Error fields (message, stack, description, cause...) are not enumerable by default.
			const fields: Record<string, unknown> = {};
			for (const key of Object.getOwnPropertyNames(entry))
				fields[key] = (entry as unknown as Record<string, unknown>)[key];
			for (const key of Object.keys(entry))
				fields[key] = (entry as unknown as Record<string, unknown>)[key];
			return fields;
		}
		return entry;
	});
	for (const secret of secrets) {
		expect(secret.length).toBeGreaterThan(8);
		if (text?.includes(secret))
			throw new Error(`a secret token appears in: ${text.slice(0, 2000)}`);
	}
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function poll<T>(
	check: () => Promise<T | undefined | false>,
	timeoutMs = 10_000,
	intervalMs = 50,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined && value !== false) return value as T;
		if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/** Page rows as stored, deleted ones included (`deleted_at` set by a default delete). */
export function storedPageRows(
	site: TestSite,
	tenantId: string,
): Array<{ url: string; deleted_at: string | null }> {
	return site.server.app.site.store.db
		.prepare(
			`SELECT p.url, p.deleted_at FROM pages p JOIN tenants t ON t.pk = p.tenant_pk WHERE t.id = ? ORDER BY p.id`,
		)
		.all(tenantId) as Array<{ url: string; deleted_at: string | null }>;
}
