/**
 * How the trigger reaches a site it registered with, to take its registration off: through the
 * credential as it is now, and only where that still reaches the place recorded (records.ts).
 *
 * - The base URL recorded must be the credential's: a token goes to its own base URL only.
 * - A Tenant Token reaches its own tenant only: the recorded tenant must be the token's.
 * - A Managed Tenant credential reaches every tenant of its service: its scope limits what the node
 *   starts acting on, not taking off what it put there (target.ts TenantCheck), so narrowing a
 *   credential never strands a registration on a site.
 */
import type { ICredentialDataDecryptedObject, IHookFunctions } from 'n8n-workflow';

import { tenantCredentialType } from '../shared/target';
import { withoutTrailingSlashes } from '../shared/url';
import type { Registration } from './records';
import type { TenantSite } from './siteSettings';
import { registrationTenant } from './tenant';

/** What to do when a registration cannot be reached: the description of the error that says so. */
export const UNREACHABLE_REMEDY =
	"The record of it stays, and the next activation tries again first. To take it off, give the credential back what reached that site (its Tenant Base URL, or a token of that tenant), or pick a Managed Tenant credential of the same service (it reaches every tenant to take a registration off); then publish or unpublish the workflow again. Until then the site delivers to this node's URL, which refuses its submissions while the workflow is not published.";

/** Where the credential reaches now: its base URL and, for a Tenant Token, its token's tenant. */
export interface CredentialReach {
	baseUrl: string;
	/** The Tenant Token's own tenant, asked once and only when needed; undefined for Managed Tenant. */
	tokenTenant: (() => Promise<string>) | undefined;
}

/** A base URL as compared: trimmed, without trailing slashes. */
export const comparableBaseUrl = (url: unknown): string =>
	withoutTrailingSlashes(String(url ?? '').trim());

export async function credentialReach(ctx: IHookFunctions): Promise<CredentialReach> {
	const type = tenantCredentialType(ctx);
	const credentials = await ctx.getCredentials<ICredentialDataDecryptedObject>(type);
	let asked: Promise<string> | undefined;
	return {
		baseUrl: comparableBaseUrl(credentials.baseUrl),
		tokenTenant:
			type === 'siteTenantApi' ? async () => await (asked ??= registrationTenant(ctx)) : undefined,
	};
}

/**
 * The recorded registration's site as the credential reaches it now; throws, saying why, where it
 * does not. (A record without a base URL predates them: it went through the credential's.)
 */
export async function registeredSite(
	reach: CredentialReach,
	registration: Registration & { tenantId: string },
): Promise<TenantSite> {
	const recorded = comparableBaseUrl(registration.siteUrl);
	if (recorded !== '' && recorded !== reach.baseUrl) {
		throw new Error(
			`registered through ${recorded}, but the credential now points at ${reach.baseUrl}, and its token goes there only`,
		);
	}
	if (reach.tokenTenant !== undefined) {
		const own = await reach.tokenTenant();
		if (own !== registration.tenantId) {
			throw new Error(
				`registered for that tenant, but the credential's token is tenant "${own}"'s`,
			);
		}
	}
	return { tenantId: registration.tenantId, check: 'ownRegistration' };
}
