/** Pure helpers of the nodes, tested directly where their edge cases matter. */
import { apiPathProblem } from '../nodes/SiteTenant/actions/customApiCall/apiPath';
import { stableStringify } from '../nodes/SiteTenant/actions/ai/diff';
import { formatDetails, readErrorBody } from '../nodes/shared/errors';
import { buildMultipartEnvelope, escapeQuotedParameter, isValidMimeType, multipartBuffer, multipartChunks } from '../nodes/SiteTenant/actions/asset/multipart';
import { extractJsonFromText, getByPath, parseProposal, ProposalError } from '../nodes/SiteTenant/actions/ai/proposal';
import {
	backoffDelay,
	isRetryableNetworkError,
	isRetryableStatus,
	parseRetryAfter,
	RETRY_BASE_DELAY_MS,
	RETRY_MAX_DELAY_MS,
} from '../nodes/shared/retry';
import { joinUrl } from '../nodes/shared/url';

describe('retry', () => {
	test('parseRetryAfter reads seconds and HTTP dates, ignores junk', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('0', now)).toBe(0);
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
		expect(parseRetryAfter(['2', '9'], now)).toBe(2000);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
		expect(parseRetryAfter('', now)).toBeUndefined();
		expect(parseRetryAfter('soon', now)).toBeUndefined();
	});

	test('parseRetryAfter: malformed values (negative, signed, exponent, bare years, overflow, bad dates) fall back to the backoff', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		for (const junk of ['-5', '-0', '+5', '5e3', '1e400', '1'.repeat(400), '0x10', '5 s', '5,5', '.5', '1.', 'Infinity', 'NaN', '-1', '12/31/2025', 'Thu, 99 Foo 2026 00:00:00 GMT', '   ', [], {}]) {
			expect({ junk, ms: parseRetryAfter(junk, now) }).toEqual({ junk, ms: undefined });
		}
		// The obsolete HTTP-date forms still count.
		expect(parseRetryAfter('Thursday, 01-Jan-26 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfter('Thu Jan  1 00:00:07 2026', now)).toBe(7000);
	});

	test('backoffDelay grows exponentially with full jitter and a cap', () => {
		expect(backoffDelay(0, () => 0)).toBe(0);
		expect(backoffDelay(0, () => 0.999999)).toBe(RETRY_BASE_DELAY_MS - 1);
		expect(backoffDelay(1, () => 0.5)).toBe(RETRY_BASE_DELAY_MS);
		expect(backoffDelay(3, () => 0.5)).toBe(RETRY_BASE_DELAY_MS * 4);
		expect(backoffDelay(30, () => 0.999999)).toBeLessThan(RETRY_MAX_DELAY_MS);
		expect(backoffDelay(30, () => 0.999999)).toBeGreaterThan(RETRY_MAX_DELAY_MS - 2);
		const samples = Array.from({ length: 200 }, () => backoffDelay(2));
		expect(Math.min(...samples)).toBeGreaterThanOrEqual(0);
		expect(Math.max(...samples)).toBeLessThan(RETRY_BASE_DELAY_MS * 4);
		expect(new Set(samples).size).toBeGreaterThan(10);
	});

	test('which statuses and network errors are retried', () => {
		for (const status of [429, 500, 502, 503, 504, 599]) expect(isRetryableStatus(status)).toBe(true);
		for (const status of [200, 400, 401, 403, 404, 408, 409, 413, 415, 422]) expect(isRetryableStatus(status)).toBe(false);
		expect(isRetryableNetworkError('ECONNRESET', undefined)).toBe(true);
		expect(isRetryableNetworkError('econnrefused', undefined)).toBe(true);
		expect(isRetryableNetworkError(undefined, 'socket hang up')).toBe(true);
		expect(isRetryableNetworkError(undefined, 'timeout of 300ms exceeded')).toBe(true);
		expect(isRetryableNetworkError('SITE_TOKEN_MINT_UNAVAILABLE', 'x')).toBe(true);
		expect(isRetryableNetworkError('ERR_INVALID_URL', 'Invalid URL')).toBe(false);
		expect(isRetryableNetworkError(undefined, 'The operation was aborted')).toBe(false);
	});
});

test('joinUrl neither doubles nor loses slashes', () => {
	expect(joinUrl('http://h:1', '/api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl('http://h:1/', '/api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl('http://h:1///', 'api/pages')).toBe('http://h:1/api/pages');
	expect(joinUrl(' http://h:1/site/ ', '//api/pages')).toBe('http://h:1/site/api/pages');
	expect(joinUrl('http://h:1/', '')).toBe('http://h:1');
});

describe('errors', () => {
	test('formatDetails renders field problems as lines', () => {
		expect(formatDetails([{ field: 'url', problem: 'is required' }, { field: 'locale', problem: 'too long' }])).toBe('url: is required\nlocale: too long');
		expect(formatDetails({ url: 'is required', extra: { a: 1 } })).toBe('url: is required\nextra: {"a":1}');
		expect(formatDetails(['plain'])).toBe('plain');
		expect(formatDetails([])).toBeUndefined();
		expect(formatDetails(null)).toBeUndefined();
	});

	test('readErrorBody takes objects, JSON text, Buffers and keeps an excerpt of anything else', () => {
		expect(readErrorBody({ error: 'x', message: 'm' })).toEqual({ error: 'x', message: 'm' });
		expect(readErrorBody('{"message":"m"}')).toEqual({ message: 'm' });
		expect(readErrorBody(Buffer.from('{"message":"b"}'))).toEqual({ message: 'b' });
		expect(readErrorBody('<html>Bad gateway</html>')).toEqual({ message: '<html>Bad gateway</html>' });
		expect(readErrorBody('x'.repeat(2000))?.message).toHaveLength(500);
		expect(readErrorBody('')).toBeUndefined();
		expect(readErrorBody([1])).toBeUndefined();
	});
});

test('apiPathProblem keeps the custom call under /api/', () => {
	for (const ok of ['/api/pages', '/api/chatbot/ask', '/api/pages?url=/a/../b', '/api/x%20y']) expect(apiPathProblem(ok)).toBeUndefined();
	for (const bad of ['https://evil.example/api/x', '//evil.example/api/x', 'javascript:alert(1)', '/api/../health', '/api/./x', '/api/%2E%2E/x', '/api\\x', '/health', '/apix', '/api/', '/api//x', '/api/%zz']) {
		expect(apiPathProblem(bad)).toEqual(expect.any(String));
	}
});

describe('proposal parsing', () => {
	const proposal = { url: '/a', templates: [{ type: 'text' }] };

	test('extractJsonFromText prefers whole JSON, then json fences, then other fences, then objects in prose', () => {
		expect(extractJsonFromText(JSON.stringify(proposal))).toEqual(proposal);
		expect(extractJsonFromText('```js\n{"x": 1}\n```\n```json\n{"y": 2}\n```')).toEqual({ y: 2 });
		expect(extractJsonFromText('Intro\n```\n{"z": 3}\n```')).toEqual({ z: 3 });
		expect(extractJsonFromText('```json\n{"open": true}')).toEqual({ open: true });
		expect(extractJsonFromText('Note {"a": "}"} then {"url": "/b", "templates": []}.')).toEqual({ url: '/b', templates: [] });
		expect(() => extractJsonFromText('  ')).toThrow(ProposalError);
		expect(() => extractJsonFromText('no json')).toThrow('No JSON object found in the proposal text');
	});

	test('getByPath follows dots and indexes', () => {
		const value = { a: { b: [{ c: 1 }, { c: 2 }] }, 'x.y': 3 };
		expect(getByPath(value, 'a.b[1].c')).toBe(2);
		expect(getByPath(value, 'a.b.0.c')).toBe(1);
		expect(getByPath(value, '')).toBe(value);
		expect(getByPath(value, 'a.missing.c')).toBeUndefined();
		expect(getByPath(value, 'a.b[5].c')).toBeUndefined();
		expect(getByPath(value, 'constructor')).toBeUndefined();
	});

	test('parseProposal validates and reports every problem; url option fills in or must match', () => {
		expect(parseProposal(proposal)).toEqual({ proposal, ignoredKeys: [] });
		expect(parseProposal({ ...proposal, banner: null, notes: 'x' })).toEqual({ proposal: { ...proposal, banner: null }, ignoredKeys: ['notes'] });
		expect(parseProposal({ templates: [] }, { url: '/given' }).proposal).toEqual({ url: '/given', templates: [] });
		expect(() => parseProposal(proposal, { url: '/other' })).toThrow('does not match the URL parameter "/other"');
		try {
			parseProposal({ url: 5, templates: [null], banner: 1 });
			throw new Error('no error');
		} catch (error) {
			expect(error).toBeInstanceOf(ProposalError);
			expect((error as ProposalError).problems).toEqual([
				'Proposal url must be a string, got a number',
				'Proposal templates[0] must be an object, got null',
				'Proposal banner must be an object or null, got a number',
			]);
		}
		expect(() => parseProposal(null)).toThrow('The proposal is empty');
		expect(() => parseProposal(42)).toThrow('Proposal must be a JSON object, got a number');
		const deep = Array.from({ length: 12 }).reduce<unknown>((inner) => ({ message: inner }), JSON.stringify(proposal));
		expect(() => parseProposal(deep)).toThrow('nested too deeply');
	});
});

test('stableStringify ignores key order', () => {
	expect(stableStringify({ b: 1, a: [{ d: 2, c: 3 }] })).toBe(stableStringify({ a: [{ c: 3, d: 2 }], b: 1 }));
	expect(stableStringify({ a: 1 })).not.toBe(stableStringify({ a: 2 }));
	expect(stableStringify([1, 2])).not.toBe(stableStringify([2, 1]));
});

describe('multipart', () => {
	test('the envelope around the file bytes is well-formed', () => {
		const envelope = buildMultipartEnvelope([{ name: 'name', value: 'Team' }], { fieldName: 'file', fileName: 'a "b".txt', contentType: 'text/plain' }, 'BOUNDARY');
		expect(envelope.contentType).toBe('multipart/form-data; boundary=BOUNDARY');
		expect(multipartBuffer(envelope, Buffer.from('DATA')).toString()).toBe(
			'--BOUNDARY\r\nContent-Disposition: form-data; name="name"\r\n\r\nTeam\r\n' +
				'--BOUNDARY\r\nContent-Disposition: form-data; name="file"; filename="a %22b%22.txt"\r\nContent-Type: text/plain\r\n\r\n' +
				'DATA\r\n--BOUNDARY--\r\n',
		);
	});

	test('header values cannot be injected', () => {
		expect(escapeQuotedParameter('a\r\nb"c')).toBe('a%0D%0Ab%22c');
		expect(isValidMimeType('image/png')).toBe(true);
		expect(isValidMimeType('text/plain; charset=utf-8')).toBe(true);
		expect(isValidMimeType('text/plain\r\nX-Evil: 1')).toBe(false);
		expect(isValidMimeType('nonsense')).toBe(false);
		const envelope = buildMultipartEnvelope([], { fieldName: 'file', fileName: 'f', contentType: 'text/plain\r\nX-Evil: 1' }, 'B');
		expect(envelope.preamble.toString()).not.toContain('\r\nX-Evil');
	});

	test('streamed chunks refuse a file whose size differs from the recorded one', async () => {
		const envelope = buildMultipartEnvelope([], { fieldName: 'file', fileName: 'f', contentType: 'text/plain' }, 'B');
		async function* file() {
			yield Buffer.from('abc');
			yield Buffer.from('def');
		}
		const collect = async (expected?: number) => {
			const parts: Buffer[] = [];
			for await (const chunk of multipartChunks(envelope, file(), expected)) parts.push(chunk);
			return Buffer.concat(parts).toString();
		};
		expect(await collect(6)).toBe(multipartBuffer(envelope, Buffer.from('abcdef')).toString());
		expect(await collect()).toBe(multipartBuffer(envelope, Buffer.from('abcdef')).toString());
		await expect(collect(5)).rejects.toThrow('larger than its recorded size');
		await expect(collect(7)).rejects.toThrow('has 6 bytes');
	});
});
