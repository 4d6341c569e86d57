/**
 * lib/page-url.ts over generated urls: the stored form is a fixed point (canonicalising it again gives
 * it back, so the url a page is listed under names that page), it passes the OpenAPI document's own
 * pattern (a listed url is valid input), and what the document refuses is refused however encoded.
 */
import fc from 'fast-check';
import { PAGE_URL_PATTERN, canonicalPageUrl } from '../../src/lib/page-url';
import { rawPageUrl as rawUrl } from '../helpers/page-urls';

const documentPattern = new RegExp(PAGE_URL_PATTERN, 'u');

test('the stored form is a fixed point and passes the document pattern', () => {
	fc.assert(
		fc.property(rawUrl, (raw) => {
			const first = canonicalPageUrl(raw);
			if ('problem' in first) return;
			expect(canonicalPageUrl(first.url)).toEqual(first);
			expect(documentPattern.test(first.url)).toBe(true);
			expect(first.url).not.toMatch(/%[0-9a-f]{2}/i);
		}),
		{ numRuns: 20000, seed: 41 },
	);
});

test('what the document pattern refuses is refused however it is encoded', () => {
	// Percent-encoding every character of a url the pattern refuses must not make it a page.
	const encodeAll = (url: string) =>
		Array.from(new TextEncoder().encode(url))
			.map((byte) => `%${byte.toString(16).padStart(2, '0')}`)
			.join('');
	fc.assert(
		fc.property(rawUrl, (raw) => {
			if (!raw.startsWith('/') || raw.includes('%') || /\p{Cs}/u.test(raw)) return;
			if (documentPattern.test(raw)) return;
			const encoded = `/${encodeAll(raw.slice(1))}`;
			expect({ raw, encoded: canonicalPageUrl(encoded) }).toEqual({
				raw,
				encoded: { problem: expect.any(String) },
			});
		}),
		{ numRuns: 20000, seed: 41 },
	);
});

test.each([
	['/%5Cevil.com', 'a backslash after the leading slash (/\\evil.com)'],
	['/%2F/evil.com', '//evil.com'],
	['/a/%2e%2e/b', 'a dot segment'],
	['/a%5C..%5Cb', 'a dot segment between backslashes'],
	['/%252e%252e/b', 'an escape of an escape'],
	['/x%2541', 'an escape of an escape'],
	['/a%E2%80%AEb', 'U+202E right-to-left override'],
	['/a\u202eb', 'U+202E raw'],
	['/a%E2%80%8Eb', 'U+200E left-to-right mark'],
	['/a\u200eb', 'U+200E raw'],
	['/a\u200fb', 'U+200F raw'],
	['/a%D8%9Cb', 'U+061C Arabic letter mark'],
	['/a%E2%81%A6b', 'U+2066 left-to-right isolate'],
	['/a%C2%85b', 'U+0085 next line'],
	['/a\u009bb', 'U+009B raw'],
	['/a%C2%9Bb', 'U+009B encoded'],
	['/a%00b', 'NUL'],
	['/a%20b', 'a space'],
	['/a%3Fb', 'a question mark'],
	['/a%23b', 'a hash'],
	['/a%C3b', 'an escape that is not UTF-8'],
	['/a%ED%A0%80b', 'an encoded surrogate'],
	['/a\ud800b', 'a lone surrogate'],
	['/%EF%BC%A1bc', 'a fullwidth letter encoded'],
	['/\ufb01le', 'a ligature'],
])('%s is refused (%s)', (raw) => {
	expect(canonicalPageUrl(raw)).toEqual({ problem: expect.any(String) });
});

test.each([
	['/x%41', '/xa'],
	['/100%25', '/100%'],
	['/100%', '/100%'],
	['/a%zz', '/a%zz'],
	['/About/', '/about'],
	['/caf%C3%A9', '/caf\u00e9'],
	['/cafe\u0301', '/caf\u00e9'],
	['/\u212aelvin', '/kelvin'],
	['/', '/'],
	['/a///', '/a'],
])('%s is stored as %s', (raw, stored) => {
	expect(canonicalPageUrl(raw)).toEqual({ url: stored });
});
