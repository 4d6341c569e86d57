/**
 * A page version the site gave. AI > Get Page Context hands out the page's updated_at with a seal: an
 * HMAC over the credential's service, tenant and the page's url, keyed by a hash of the credential's
 * secret (its token, or the Managed Tenant credential's admin token). AI > Apply Proposal can then
 * tell a version that came from the site (copied through a model's answer or the Page Version
 * parameter) from one a model wrote, and the page it was read for from another: neither a model nor
 * a page's text knows the key. Nothing here talks to n8n or the network.
 */
import { createHash, createHmac, timingSafeEqual } from 'crypto';

import type { RequestTarget } from '../../../shared/target';

/** Between the updated_at and its seal: in neither an ISO time nor base64url. */
const SEAL_SEPARATOR = '~';
/** 128 bits of HMAC-SHA-256, base64url. */
const SEAL_BYTES = 16;
const SEAL_LENGTH = Math.ceil((SEAL_BYTES * 4) / 3);

function sealKey(target: RequestTarget): Buffer {
	const secret =
		target.credentialType === 'siteManagedTenantApi'
			? target.credentials.adminToken
			: target.credentials.token;
	return createHash('sha256')
		.update(`site-management page version\0${String(secret ?? '')}`)
		.digest();
}

function seal(target: RequestTarget, url: string, updatedAt: string): Buffer {
	return createHmac('sha256', sealKey(target))
		.update(JSON.stringify([target.baseUrl, target.tenantId ?? '', url, updatedAt]))
		.digest()
		.subarray(0, SEAL_BYTES);
}

/** The page's version as Get Page Context gives it: its updated_at and the seal. */
export function sealedVersion(target: RequestTarget, url: string, updatedAt: string): string {
	return `${updatedAt}${SEAL_SEPARATOR}${seal(target, url, updatedAt).toString('base64url')}`;
}

/** Whether `version` has a seal's shape (it may still be a wrong one). */
export function isSealed(version: string): boolean {
	const at = version.lastIndexOf(SEAL_SEPARATOR);
	return at > 0 && version.length - at - 1 === SEAL_LENGTH;
}

/**
 * The updated_at of a sealed version when its seal is this credential's for the page at `url`;
 * undefined otherwise (another page, another credential or tenant, or made up). Compared in constant
 * time.
 */
export function unsealedVersion(
	target: RequestTarget,
	url: string,
	version: string,
): string | undefined {
	if (!isSealed(version)) return undefined;
	const at = version.lastIndexOf(SEAL_SEPARATOR);
	const updatedAt = version.slice(0, at);
	const given = Buffer.from(version.slice(at + 1), 'base64url');
	const expected = seal(target, url, updatedAt);
	return given.length === expected.length && timingSafeEqual(given, expected)
		? updatedAt
		: undefined;
}
