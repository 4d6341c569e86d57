/**
 * The shared secret between the site and the trigger: made, compared and kept out of the output.
 */
import { createHash, randomBytes, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { MIN_SECRET_LENGTH } from '../shared/deliverySecret';
import { setOwn } from './objects';

/** The header an automatic registration asks the site to send the secret in. */
export const AUTOMATIC_SECRET_HEADER = 'X-Site-Webhook-Secret';

/** Default header name of a manual registration (the credential's default). */
export const DEFAULT_MANUAL_SECRET_HEADER = AUTOMATIC_SECRET_HEADER;

/** Request headers never copied into the output, whatever the secret header is called. */
const ALWAYS_HIDDEN_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/** RFC 9110 token characters: what a header name may consist of. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** Headers the site's delivery sets itself and so cannot carry the secret. */
const RESERVED_HEADERS = [
	'content-type',
	'content-length',
	'host',
	'transfer-encoding',
	'connection',
];

/** A fresh secret: 32 random bytes, hex-encoded (64 characters, safe in any header). */
export function generateSecret(): string {
	return randomBytes(32).toString('hex');
}

function digest(value: string): Buffer {
	return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * What the node keeps of an automatic registration's secret: its SHA-256, hex. The secret is 32
 * random bytes, so the hash cannot be turned back into it, and a workflow export holds nothing that
 * could forge a delivery.
 */
export function hashSecret(secret: string): string {
	return digest(secret).toString('hex');
}

/**
 * Whether the received header value hashes to the expected hash, compared in constant time on
 * equal-length buffers whatever was sent; a missing, repeated (array) or empty value never matches.
 */
export function secretMatchesHash(received: unknown, expectedHash: string): boolean {
	return matchingHashIndex(received, [expectedHash]) === 0;
}

/**
 * The index of the expected hash the received value hashes to, or -1. The value is hashed once and
 * every candidate compared in constant time (no early exit), so the time taken does not tell which
 * one matched, or whether any did.
 */
export function matchingHashIndex(received: unknown, expectedHashes: string[]): number {
	if (typeof received !== 'string' || received === '') return -1;
	const actual = digest(received);
	let matched = -1;
	expectedHashes.forEach((hash, index) => {
		const expected = Buffer.from(hash, 'hex');
		if (expected.length === actual.length && timingSafeEqual(actual, expected)) matched = index;
	});
	return matched;
}

/** Whether the received header value is the expected (non-empty) secret, in constant time. */
export function secretMatches(received: unknown, expected: string): boolean {
	return expected !== '' && secretMatchesHash(received, hashSecret(expected));
}

/** The request headers without the secret header, Authorization, Proxy-Authorization and Cookie. */
export function visibleHeaders(headers: IDataObject, secretHeaderName: string): IDataObject {
	const hidden = new Set([...ALWAYS_HIDDEN_HEADERS, secretHeaderName.toLowerCase()]);
	const visible: IDataObject = {};
	for (const [name, value] of Object.entries(headers)) {
		if (!hidden.has(name.toLowerCase())) setOwn(visible, name, value);
	}
	return visible;
}

/** Problems with a manual registration's header name and secret, as sentences (empty when fine). */
export function secretCredentialProblems(headerName: unknown, secret: unknown): string[] {
	const problems: string[] = [];
	const name = typeof headerName === 'string' ? headerName.trim() : '';
	if (!HEADER_NAME.test(name)) {
		problems.push(
			'The header name must be a valid HTTP header name (letters, digits and -, no spaces).',
		);
	} else if (RESERVED_HEADERS.includes(name.toLowerCase())) {
		problems.push(
			`The header name "${name}" is set by the site itself; choose another, e.g. X-Site-Webhook-Secret.`,
		);
	}
	const value = typeof secret === 'string' ? secret : '';
	if (value.length < MIN_SECRET_LENGTH) {
		problems.push(
			`The secret must be at least ${MIN_SECRET_LENGTH} characters long; use a long random value.`,
		);
	}
	if (/[\r\n\0]/.test(value)) {
		problems.push('The secret must not contain line breaks.');
	}
	return problems;
}
