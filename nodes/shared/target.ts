/**
 * Where one item's request goes, decided here and nowhere else: credential → tenant → base URL, the
 * item's Timeout and Max Retries, and whether it is a dry run. Each failure is the item's own error and names the field; no
 * failure falls back to another tenant. (The token is added by the sender's strategy, auth.ts.)
 *
 * The tenant, for a Managed Tenant credential: the node's Tenant parameter when it is filled in (an
 * expression that throws or resolves empty fails the item), else the credential's Tenant ID; either
 * way it must lie within the credential's scope (tenantScope.ts), except for a trigger taking its own
 * registration off the tenant it recorded (TenantCheck). A Tenant Token credential's token decides
 * its tenant on the service; the Admin credential has none.
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

import { isDryRun } from './dryRun';
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
	/** The item is a dry run (dryRun.ts): the sender sends reads only. */
	dryRun: boolean;
}

const hasItems = (ctx: SiteRequestContext): ctx is IExecuteFunctions => 'getInputData' in ctx;

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

interface TenantProblem {
	message: string;
	description: string;
}

function notATenantId(tenantId: string): TenantProblem | undefined {
	if (TENANT_ID.test(tenantId)) return undefined;
	return {
		message: `Tenant "${tenantId.slice(0, 80)}" is not a tenant ID`,
		description:
			'A tenant ID is 1 to 63 lowercase letters, digits, - and _, starting with a letter or digit.',
	};
}

/** Why a Managed Tenant credential may not act on `tenantId` (not a tenant ID, outside its scope). */
export function managedTenantProblem(
	credentials: ICredentialDataDecryptedObject,
	tenantId: string,
): TenantProblem | undefined {
	const malformed = notATenantId(tenantId);
	if (malformed) return malformed;
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
 * How a Managed Tenant credential's tenant is checked: against its scope (every request the node
 * starts), or, for taking a trigger's own registration off the tenant it recorded, only as a tenant
 * ID. That call only takes off what the node put there, and a scope narrowed since must not strand
 * it on a site (SiteContactFormTrigger/registeredSite.ts).
 */
export type TenantCheck = 'scope' | 'ownRegistration';

/**
 * The tenant a Managed Tenant credential acts on for the item, checked (TenantCheck): `chosen`
 * (a trigger serving several tenants names each), else the node's Tenant parameter, else the
 * credential's Tenant ID.
 */
function managedTenant(
	ctx: SiteRequestContext,
	itemIndex: number,
	credentials: ICredentialDataDecryptedObject,
	chosen: string | undefined,
	check: TenantCheck,
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
	const problem =
		check === 'scope' ? managedTenantProblem(credentials, tenantId) : notATenantId(tenantId);
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
): { timeout: number; maxRetries: number } {
	const ms = itemOption(ctx, itemIndex, 'timeout', DEFAULT_TIMEOUT_MS);
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
 * Where the item's request goes: its credential as n8n resolves it for the item, the tenant (Managed
 * Tenant), the base URL, and its Timeout and Max Retries. `tenant` names the Managed Tenant
 * credential's tenant in place of the node's Tenant parameter (within the scope all the same; another
 * credential's token decides its tenant itself). The router resolves it once per item and hands it to
 * the operation (router.ts); a trigger or list search resolves it for its own requests.
 */
export async function resolveRequestTarget(
	ctx: SiteRequestContext,
	credentialType: SiteCredentialType,
	itemIndex: number,
	tenant?: string,
	check: TenantCheck = 'scope',
): Promise<RequestTarget> {
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(
		credentialType,
		itemIndex,
	);
	const tenantId =
		credentialType === 'siteManagedTenantApi'
			? managedTenant(ctx, itemIndex, credentials, tenant, check)
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
	return {
		credentialType,
		credentials,
		tenantId,
		baseUrl,
		...itemLimits(ctx, itemIndex),
		dryRun: hasItems(ctx) && isDryRun(ctx, itemIndex),
	};
}

/**
 * The target of the Tenant node or a trigger: the credential its Authentication parameter picks.
 * Its `tenantId` is the tenant acted on for a Managed Tenant credential (within its scope), undefined
 * for a Tenant Token, whose token decides on the service.
 */
export async function resolveTenantTarget(
	ctx: SiteRequestContext,
	itemIndex = 0,
	tenant?: string,
	check: TenantCheck = 'scope',
): Promise<RequestTarget> {
	return await resolveRequestTarget(
		ctx,
		tenantCredentialType(ctx, itemIndex),
		itemIndex,
		tenant,
		check,
	);
}
