/**
 * The editor's list of tenants (the Tenant parameter's From List), read through the Admin API with
 * the admin token of a Managed Tenant credential. `GET /api/tenants` is a reference-server extension:
 * a service without it answers 404, and the error says to name the tenant By ID instead. Only the
 * tenants within the credential's scope are offered (tenantScope.ts): One Tenant lists its Tenant ID
 * without asking the service.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { networkError, readThrownRequestError, redirectError, serverError } from './errors';
import { isPlainObject } from './json';
import { isRedirectStatus } from './redirect';
import { DEFAULT_TIMEOUT_MS } from './target';
import { credentialScope, SCOPE_ONE, scopeAllows } from './tenantScope';
import { unwrapList } from './transport';
import { joinUrl } from './url';

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
	const baseUrl = String(credentials.adminBaseUrl ?? '');
	const url = joinUrl(baseUrl, '/api/tenants');
	const page = Math.max(1, Number(paginationToken) || 1);
	const qs: IDataObject = { page, per_page: TENANT_SEARCH_SIZE };
	if (filter?.trim()) qs.search = filter.trim();
	let response: IN8nHttpFullResponse;
	try {
		response = (await ctx.helpers.httpRequest({
			method: 'GET',
			url,
			qs,
			headers: { Authorization: `Bearer ${String(credentials.adminToken ?? '')}` },
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: DEFAULT_TIMEOUT_MS,
		})) as IN8nHttpFullResponse;
	} catch (error) {
		const failure = readThrownRequestError(error);
		throw networkError(ctx.getNode(), failure.code, failure.message, 0, 1, { baseUrl });
	}
	const status = response.statusCode;
	if (isRedirectStatus(status)) {
		throw redirectError(ctx.getNode(), url, status, response.headers, 0);
	}
	if (status === 404 || status === 405)
		throw noTenantListing(ctx.getNode(), status, 0, 'name the tenant By ID');
	if (status < 200 || status > 299) {
		throw serverError(ctx.getNode(), status, response.body, 0, { baseUrl });
	}
	const body = response.body;
	const lastPage = Number(
		isPlainObject(body) && isPlainObject(body.meta) ? body.meta.last_page : NaN,
	);
	return {
		results: unwrapList(body)
			.filter((tenant) => scopeAllows(scope, String(tenant.id)))
			.map((tenant) => ({
				name: String(tenant.id),
				value: String(tenant.id),
				...(tenant.fqdn ? { description: String(tenant.fqdn) } : {}),
			})),
		paginationToken: Number.isFinite(lastPage) && page < lastPage ? String(page + 1) : undefined,
	};
}
