/**
 * The editor's list of tenants (the Tenant parameter's From List), read through the Admin API with
 * the admin token of a Managed Tenant credential. `GET /api/tenants` is a reference-server extension:
 * a service without it answers 404, and the error says to name the tenant By ID instead. Only the
 * tenants within the credential's scope are offered (tenantScope.ts): One Tenant lists its Tenant ID
 * without asking the service. A trigger serving every tenant its credential allows walks the whole list
 * (tenantsInScope).
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	ILoadOptionsFunctions,
	INode,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { bearerAuth } from './auth';
import { isMissingEndpoint } from './errors';
import type { SiteRequestContext } from './target';
import { DEFAULT_TIMEOUT_MS } from './target';
import { credentialScope, SCOPE_ONE, scopeAllows } from './tenantScope';
import type { Route } from './transport';
import { lastPageOf, nextSearchPage, searchPageOf, sendOnRoute, unwrapList } from './transport';

const TENANT_SEARCH_SIZE = 50;

/**
 * The error for a service without the tenant listing (it answered `status`, 404 or 405); `instead`
 * says what to do without it.
 */
export function noTenantListing(
	node: INode,
	status: number,
	itemIndex: number,
	instead: string,
): NodeOperationError {
	return new NodeOperationError(
		node,
		`This Site Management Service cannot list its tenants: ${instead}`,
		{
			description: `Listing tenants (GET /api/tenants) is an extension of the reference server; the Admin API of the service answered ${status}.`,
			itemIndex,
		},
	);
}

/** One page of the service's tenants (`GET /api/tenants`), read with the credential's admin token. */
async function adminTenantsPage(
	ctx: SiteRequestContext,
	credentials: ICredentialDataDecryptedObject,
	{ page, perPage, search, instead }: TenantPageRequest,
): Promise<{ tenants: IDataObject[]; lastPage: number | undefined }> {
	const qs: IDataObject = { page, per_page: perPage };
	if (search) qs.search = search;
	const route: Route = {
		baseUrl: String(credentials.adminBaseUrl ?? ''),
		auth: bearerAuth(ctx, String(credentials.adminToken ?? '')),
		timeout: DEFAULT_TIMEOUT_MS,
		maxRetries: 0,
		dryRun: false,
	};
	const response = await sendOnRoute(
		ctx,
		route,
		{ method: 'GET', path: '/api/tenants', qs },
		{ itemIndex: 0, acceptStatus: isMissingEndpoint },
	);
	if (isMissingEndpoint(response.statusCode))
		throw noTenantListing(ctx.getNode(), response.statusCode, 0, instead);
	return { tenants: unwrapList(response.body), lastPage: lastPageOf(response.body) };
}

interface TenantPageRequest {
	page: number;
	perPage: number;
	search?: string;
	/** What to do where the service cannot list tenants (the error says it). */
	instead: string;
}

export async function listTenants(
	ctx: ILoadOptionsFunctions,
	credentialType: 'siteManagedTenantApi',
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(credentialType);
	const scope = credentialScope(credentials);
	if (scope.kind === SCOPE_ONE) {
		const fragment = filter?.trim().toLowerCase() ?? '';
		const offered = scope.tenantId !== '' && scope.tenantId.includes(fragment);
		return { results: offered ? [{ name: scope.tenantId, value: scope.tenantId }] : [] };
	}
	const page = searchPageOf(paginationToken);
	const { tenants, lastPage } = await adminTenantsPage(ctx, credentials, {
		page,
		perPage: TENANT_SEARCH_SIZE,
		search: filter?.trim() || undefined,
		instead: 'name the tenant By ID',
	});
	return {
		results: tenants
			.filter((tenant) => scopeAllows(scope, String(tenant.id)))
			.map((tenant) => ({
				name: String(tenant.id),
				value: String(tenant.id),
				...(tenant.fqdn ? { description: String(tenant.fqdn) } : {}),
			})),
		paginationToken: nextSearchPage(page, lastPage),
	};
}

const TENANT_WALK_SIZE = 100;

/**
 * Every tenant the service lists that the credential's scope allows, in the service's order; more
 * than `max` is an error (`tooMany` says what to do). `instead`: see TenantPageRequest.
 */
export async function tenantsInScope(
	ctx: SiteRequestContext,
	credentials: ICredentialDataDecryptedObject,
	{ max, tooMany, instead }: { max: number; tooMany: string; instead: string },
): Promise<string[]> {
	const scope = credentialScope(credentials);
	const allowed: string[] = [];
	for (let page = 1; ; page++) {
		const { tenants, lastPage } = await adminTenantsPage(ctx, credentials, {
			page,
			perPage: TENANT_WALK_SIZE,
			instead,
		});
		for (const tenant of tenants) {
			const id = String(tenant.id);
			if (!scopeAllows(scope, id)) continue;
			if (allowed.length >= max) throw new NodeOperationError(ctx.getNode(), tooMany);
			allowed.push(id);
		}
		const done = lastPage !== undefined ? page >= lastPage : tenants.length < TENANT_WALK_SIZE;
		if (done || tenants.length === 0) return allowed;
	}
}
