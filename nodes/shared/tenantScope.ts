/**
 * The tenants a Managed Tenant credential may act on: a limit, not a default. One Tenant (its Tenant
 * ID, the default), Listed Tenants (IDs and simple patterns such as `client-*`) or Any Tenant, which
 * has to be chosen explicitly. Used by the credential (n8n's preAuthentication) and by the nodes
 * (request target, list searches); imports nothing from either.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** The contract's tenant id: 1 to 63 of a-z, 0-9, - and _, starting with a letter or digit. */
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

type TenantScopeKind = 'one' | 'listed' | 'any';

export const SCOPE_ONE: TenantScopeKind = 'one';
export const SCOPE_LISTED: TenantScopeKind = 'listed';
export const SCOPE_ANY: TenantScopeKind = 'any';

/** What a credential allows, as n8n resolved its fields (for the item, where resolved per item). */
interface TenantScope {
	kind: TenantScopeKind;
	/** The credential's Tenant ID: the only tenant (One Tenant), else the one used where no node names one. */
	tenantId: string;
	/** Listed Tenants: the entries as written (IDs or patterns with `*`). */
	patterns: string[];
}

/** The credential's Tenant ID as n8n resolved it ('' when empty). */
function credentialTenant(credentials: ICredentialDataDecryptedObject): string {
	return String(credentials.tenantId ?? '').trim();
}

/**
 * The credential's scope. A credential saved before the Tenant Scope field existed has none and is
 * One Tenant: its Tenant ID (an empty one allows no tenant; see CHANGELOG).
 */
export function credentialScope(credentials: ICredentialDataDecryptedObject): TenantScope {
	const kind: TenantScopeKind =
		credentials.tenantScope === SCOPE_ANY || credentials.tenantScope === SCOPE_LISTED
			? credentials.tenantScope
			: SCOPE_ONE;
	const patterns =
		kind === SCOPE_LISTED
			? String(credentials.allowedTenants ?? '')
					.split(/[,\n]/)
					.map((entry) => entry.trim().toLowerCase())
					.filter((entry) => entry !== '')
			: [];
	return { kind, tenantId: credentialTenant(credentials), patterns };
}

/**
 * `client-*` matches `client-` followed by anything; every other character is taken literally. Each
 * part between stars is taken at its first place after the one before (the last part at the end), so
 * nothing is tried twice; a pattern turned into `^client-.*$` would backtrack through every `.*`,
 * work that grows with the id's length to the power of the stars.
 */
function patternMatches(pattern: string, tenantId: string): boolean {
	const parts = pattern.split('*');
	if (parts.length === 1) return pattern === tenantId;
	const first = parts[0];
	const last = parts[parts.length - 1];
	if (tenantId.length < first.length + last.length) return false;
	if (!tenantId.startsWith(first) || !tenantId.endsWith(last)) return false;
	let at = first.length;
	const end = tenantId.length - last.length;
	for (const part of parts.slice(1, -1)) {
		const found = tenantId.indexOf(part, at);
		if (found === -1 || found + part.length > end) return false;
		at = found + part.length;
	}
	return true;
}

/**
 * A pattern of stars alone (`*`) would be Any Tenant without its notice: it allows nothing, and
 * scopeProblem says to choose Any Tenant instead.
 */
export const isCatchAll = (pattern: string): boolean => /^\*+$/.test(pattern);

/** Whether the scope lets a request act on `tenantId`. */
export function scopeAllows(scope: TenantScope, tenantId: string): boolean {
	if (tenantId === '') return false;
	if (scope.kind === SCOPE_ANY) return true;
	if (scope.kind === SCOPE_ONE) return tenantId === scope.tenantId;
	return scope.patterns.some(
		(pattern) => !isCatchAll(pattern) && patternMatches(pattern, tenantId),
	);
}

/** The scope in words, for an error: `only tenant "acme"`, `the tenants client-*, beta`. */
export function describeScope(scope: TenantScope): string {
	if (scope.kind === SCOPE_ANY) return 'any tenant';
	if (scope.kind === SCOPE_ONE)
		return scope.tenantId
			? `only tenant "${scope.tenantId}"`
			: 'no tenant (its Tenant ID is empty)';
	return scope.patterns.length > 0
		? `the tenants ${scope.patterns.join(', ')}`
		: 'no tenant (its Allowed Tenants are empty)';
}

/** Why the credential may not act on `tenantId` (undefined when it may). */
export function scopeProblem(scope: TenantScope, tenantId: string): string | undefined {
	if (scopeAllows(scope, tenantId)) return undefined;
	if (scope.patterns.some(isCatchAll))
		return `The Managed Tenant credential may not act on tenant "${tenantId}": "*" alone in Allowed Tenants would allow every tenant, so it allows none. Choose Tenant Scope "Any Tenant" to act on every tenant`;
	return `The Managed Tenant credential may not act on tenant "${tenantId}": it allows ${describeScope(scope)}`;
}
