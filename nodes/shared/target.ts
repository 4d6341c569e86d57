/**
 * Where one item's request goes, decided here and nowhere else: credential → tenant → base URL, and
 * the item's Timeout and Max Retries. Each failure is the item's own error and names the field; no
 * failure falls back to another tenant. (The token is added by the transport, transport.ts.)
 *
 * The tenant, for a Managed Tenant credential: the node's Tenant parameter when it is filled in (an
 * expression that throws or resolves empty fails the item), else the credential's Tenant ID; either
 * way it must lie within the credential's scope (tenantScope.ts). A Tenant Token credential's token
 * decides its tenant on the service; the Admin credential has none.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isRecord } from './json';
import { MAX_CONFIGURABLE_RETRIES, MAX_RETRIES } from './retry';
import { credentialScope, scopeProblem, TENANT_ID_PATTERN } from './tenantScope';

export type SiteCredentialType = 'siteAdminApi' | 'siteTenantApi' | 'siteManagedTenantApi';

/**
 * Who may send: a node's execute context, a trigger's hook context (webhook registration on
 * activation), its webhook context (claiming a delivery), a polling trigger's poll context or the
 * editor's load-options context (list search). Only an execute context has items, and with them
 * per-item options (Options > Timeout, Max Retries).
 */
export type SiteRequestContext =
	IExecuteFunctions | IHookFunctions | IWebhookFunctions | IPollFunctions | ILoadOptionsFunctions;

type TenantAuthentication = 'tenantToken' | 'managedTenant';

export const TENANT_TOKEN: TenantAuthentication = 'tenantToken';
export const MANAGED_TENANT: TenantAuthentication = 'managedTenant';

export const DEFAULT_TIMEOUT_MS = 30_000;

const TENANT_ID = new RegExp(TENANT_ID_PATTERN);

/** Where one item's request goes and how long it may take. */
export interface RequestTarget {
	credentialType: SiteCredentialType;
	/** The credential as n8n resolved it for the item. */
	credentials: ICredentialDataDecryptedObject;
	/** Managed Tenant: the tenant the item acts on (within the scope). Otherwise undefined. */
	tenantId: string | undefined;
	baseUrl: string;
	/** Milliseconds per attempt. */
	timeout: number;
	maxRetries: number;
}

const hasItems = (ctx: SiteRequestContext): ctx is IExecuteFunctions => 'getInputData' in ctx;

/**
 * The tenant each item's requests went to, per node run (its execute context): the router puts it on
 * the item's output and names it in the item's error, without resolving the credential again.
 */
const itemTenants = new WeakMap<object, Map<number, string>>();

/** The tenant the item's requests were sent to in this node run, if it has sent any. */
export function tenantOfItem(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	return itemTenants.get(ctx)?.get(itemIndex);
}

function recordTenant(ctx: SiteRequestContext, itemIndex: number, tenantId: string) {
	if (!hasItems(ctx)) return;
	let tenants = itemTenants.get(ctx);
	if (!tenants) itemTenants.set(ctx, (tenants = new Map()));
	tenants.set(itemIndex, tenantId);
}

/**
 * The credential type the node's Authentication parameter picks for the item. A hook, webhook, poll
 * or the editor's list search has no items; its getNodeParameter takes the fallback second.
 */
export function tenantCredentialType(ctx: SiteRequestContext, itemIndex = 0): SiteCredentialType {
	const authentication = (
		hasItems(ctx)
			? ctx.getNodeParameter('authentication', itemIndex, TENANT_TOKEN)
			: ctx.getNodeParameter('authentication', TENANT_TOKEN)
	) as TenantAuthentication;
	return authentication === MANAGED_TENANT ? 'siteManagedTenantApi' : 'siteTenantApi';
}

function itemError(
	ctx: SiteRequestContext,
	itemIndex: number,
	message: string,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		...(description ? { description } : {}),
	});
}

/**
 * The tenant the node's Tenant parameter names for the item; undefined when the node has no such
 * parameter or it is left empty. An expression that throws or resolves empty is the item's error.
 */
function namedTenant(ctx: SiteRequestContext, itemIndex: number): string | undefined {
	const raw: unknown = ctx.getNode().parameters.tenant;
	const written = isRecord(raw) ? raw.value : raw;
	if (written === undefined || written === null || String(written).trim() === '') return undefined;
	let value: unknown = written;
	try {
		if (hasItems(ctx)) {
			value = ctx.getNodeParameter('tenant', itemIndex, '', { extractValue: true });
		} else if ('getCurrentNodeParameter' in ctx) {
			value = ctx.getCurrentNodeParameter('tenant', { extractValue: true });
		}
	} catch (error) {
		throw itemError(
			ctx,
			itemIndex,
			`The Tenant parameter could not be resolved for this item: ${(error as Error).message}`,
			'The item was sent to no tenant. Check the expression in Tenant against the item.',
		);
	}
	if (isRecord(value)) value = value.value;
	const tenantId = String(value ?? '').trim();
	if (tenantId === '') {
		throw itemError(
			ctx,
			itemIndex,
			'The Tenant parameter resolved to nothing for this item',
			"The item was sent to no tenant (it never falls back to the credential's Tenant ID). Check the expression in Tenant against the item.",
		);
	}
	return tenantId;
}

/** Why a Managed Tenant credential may not act on `tenantId` (not a tenant ID, outside its scope). */
export function managedTenantProblem(
	credentials: ICredentialDataDecryptedObject,
	tenantId: string,
): { message: string; description: string } | undefined {
	if (!TENANT_ID.test(tenantId)) {
		return {
			message: `Tenant "${tenantId.slice(0, 80)}" is not a tenant ID`,
			description:
				'A tenant ID is 1 to 63 lowercase letters, digits, - and _, starting with a letter or digit.',
		};
	}
	const problem = scopeProblem(credentialScope(credentials), tenantId);
	if (problem) {
		return {
			message: problem,
			description:
				"The credential's Tenant Scope limits where it acts: edit the credential (Tenant ID, Allowed Tenants, or Any Tenant) to let it act there.",
		};
	}
	return undefined;
}

/**
 * The tenant a Managed Tenant credential acts on for the item, checked against its scope: `chosen`
 * (a trigger serving several tenants names each), else the node's Tenant parameter, else the
 * credential's Tenant ID.
 */
function managedTenant(
	ctx: SiteRequestContext,
	itemIndex: number,
	credentials: ICredentialDataDecryptedObject,
	chosen?: string,
): string {
	const tenantId = chosen ?? namedTenant(ctx, itemIndex) ?? credentialScope(credentials).tenantId;
	if (tenantId === '') {
		throw itemError(
			ctx,
			itemIndex,
			"No tenant named: the node names none and the Managed Tenant credential's Tenant ID is empty",
			'Name the tenant in the Tenant parameter of the Site Management Tenant node, or fill in the Tenant ID of the credential (the triggers use it unless they name their tenants).',
		);
	}
	const problem = managedTenantProblem(credentials, tenantId);
	if (problem) throw itemError(ctx, itemIndex, problem.message, problem.description);
	return tenantId;
}

/** A number from the node's Options for the item; an expression error is the item's error. */
function itemOption(
	ctx: SiteRequestContext,
	itemIndex: number,
	name: 'timeout' | 'maxRetries',
	fallback: number,
): number {
	if (!hasItems(ctx)) return fallback;
	const value = ctx.getNodeParameter(`options.${name}`, itemIndex, fallback) as unknown;
	return value === '' || value === null || value === undefined ? fallback : Number(value);
}

/** Options > Timeout and Max Retries for the item, each checked. */
function itemLimits(
	ctx: SiteRequestContext,
	itemIndex: number,
	timeout: number | undefined,
): { timeout: number; maxRetries: number } {
	const ms = timeout ?? itemOption(ctx, itemIndex, 'timeout', DEFAULT_TIMEOUT_MS);
	if (!(ms > 0)) {
		throw itemError(ctx, itemIndex, 'Timeout must be a number of milliseconds above 0');
	}
	const retries = itemOption(ctx, itemIndex, 'maxRetries', MAX_RETRIES);
	if (!Number.isInteger(retries) || retries < 0) {
		throw itemError(
			ctx,
			itemIndex,
			`Max Retries must be a whole number from 0 to ${MAX_CONFIGURABLE_RETRIES}`,
		);
	}
	return { timeout: ms, maxRetries: Math.min(retries, MAX_CONFIGURABLE_RETRIES) };
}

/**
 * Each item's target, per node run (its execute context), credential type, timeout and named tenant:
 * an item's second request (Setting > Update reads, then writes) acts on what its first one
 * resolved, instead of n8n reading the credential and evaluating the Tenant expression again.
 * Failures are not kept: each request of the item meets the same error.
 */
const itemTargets = new WeakMap<object, Map<string, Promise<RequestTarget>>>();

async function resolveItemTarget(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	itemIndex: number,
	timeout: number | undefined,
	tenant: string | undefined,
): Promise<RequestTarget> {
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		credentialType,
		itemIndex,
	);
	const tenantId =
		credentialType === 'siteManagedTenantApi'
			? managedTenant(ctx, itemIndex, credentials, tenant)
			: undefined;
	const baseUrl = String(credentials.baseUrl ?? '').trim();
	if (baseUrl === '') {
		throw itemError(
			ctx,
			itemIndex,
			credentialType === 'siteAdminApi'
				? "The credential's Admin Base URL is empty"
				: "The credential's Tenant Base URL is empty",
		);
	}
	if (tenantId !== undefined) recordTenant(ctx, itemIndex, tenantId);
	return {
		credentialType,
		credentials,
		tenantId,
		baseUrl,
		...itemLimits(ctx, itemIndex, timeout),
	};
}

/**
 * Where the item's request goes: its credential as n8n resolves it for the item, the tenant (Managed
 * Tenant), the base URL, and its Timeout and Max Retries. `timeout` overrides the node's option;
 * `tenant` names the Managed Tenant credential's tenant in place of the node's Tenant parameter
 * (within the scope all the same; another credential's token decides its tenant itself).
 * Resolved once per item and node run (itemTargets); a context without items resolves every time.
 */
export async function resolveRequestTarget(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	itemIndex: number,
	timeout?: number,
	tenant?: string,
): Promise<RequestTarget> {
	if (!hasItems(ctx)) {
		return await resolveItemTarget(ctx, credentialType, itemIndex, timeout, tenant);
	}
	let targets = itemTargets.get(ctx);
	if (!targets) itemTargets.set(ctx, (targets = new Map()));
	const key = `${credentialType} ${itemIndex} ${timeout ?? ''} ${tenant ?? ''}`;
	let target = targets.get(key);
	if (!target) {
		const resolving = resolveItemTarget(ctx, credentialType, itemIndex, timeout, tenant);
		targets.set(key, resolving);
		resolving.catch(() => targets.delete(key));
		target = resolving;
	}
	return await target;
}

/**
 * The tenant the Tenant node or a trigger acts on for the item, as every request of the item resolves
 * it: the Managed Tenant credential's tenant (within its scope); undefined for a Tenant Token
 * credential, whose token decides on the service. Throws the item's error as a request would.
 */
export async function resolveItemTenant(
	ctx: SiteRequestContext,
	itemIndex: number,
): Promise<string | undefined> {
	const credentialType = tenantCredentialType(ctx, itemIndex);
	if (credentialType !== 'siteManagedTenantApi') return undefined;
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		credentialType,
		itemIndex,
	);
	return managedTenant(ctx, itemIndex, credentials);
}
