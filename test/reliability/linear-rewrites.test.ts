/**
 * The functions that replaced backtracking patterns (linear-patterns.test.ts found them) answer as
 * the patterns did: each is compared with its old pattern on thousands of strings made of the
 * characters that matter to it, short enough for the old pattern to be quick.
 */
import fc from 'fast-check';

import { fencedBlocks } from '../../nodes/SiteTenant/actions/ai/proposal';
import { inline } from '../../nodes/SiteTenant/actions/ai/promptContext';
import { isValidMimeType } from '../../nodes/SiteTenant/actions/asset/multipart';
import { SCOPE_LISTED, scopeAllows } from '../../nodes/shared/tenantScope';
import { withoutTrailingSlashes } from '../../nodes/shared/url';
import { withoutTrailingSlashes as serverWithoutTrailingSlashes } from '../../reference-server/src/lib/slashes';

/** Strings of up to `maxLength` characters drawn from `characters`. */
const textOf = (characters: string[], maxLength = 24) =>
	fc.array(fc.constantFrom(...characters), { maxLength }).map((chars) => chars.join(''));

const RUNS = { numRuns: 3000 };

describe('the linear rewrites answer as the patterns they replaced', () => {
	it('withoutTrailingSlashes (nodes and server) as .replace(/\\/+$/, "")', () => {
		fc.assert(
			fc.property(textOf(['/', 'a', ' ', '\n']), (value) => {
				const expected = value.replace(/\/+$/, '');
				expect(withoutTrailingSlashes(value)).toBe(expected);
				expect(serverWithoutTrailingSlashes(value)).toBe(expected);
			}),
			RUNS,
		);
	});

	it('isValidMimeType as /^type\\/subtype([ \\t]*;[ \\t]*[^\\r\\n;]+)*$/', () => {
		const old = /^[A-Za-z0-9][\w!#$&^.+-]*\/[\w!#$&^.+-]+([ \t]*;[ \t]*[^\r\n;]+)*$/;
		const value = fc.oneof(
			textOf(['a', '/', ';', ' ', '\t', '=', '\r', '\n', '+', '"']),
			// Mostly well formed, so that the accepting side is tried as much as the refusing one.
			fc
				.tuple(
					textOf(['a', '1', '+', '.'], 6),
					textOf(['a', '-'], 6),
					fc.array(textOf(['a', '=', ' ', '\t', '\n', '"'], 6), { maxLength: 3 }),
					textOf([' ', '\t'], 2),
				)
				.map(([type, sub, parameters, space]) =>
					[`${type}/${sub}${space}`, ...parameters].join(';'),
				),
		);
		fc.assert(
			fc.property(value, (text) => {
				expect(isValidMimeType(text)).toBe(old.test(text));
			}),
			RUNS,
		);
		expect(isValidMimeType('text/plain; charset=utf-8')).toBe(true);
	});

	it('inline (a prompt line) as .replace(/\\s*[\\r\\n]+\\s*/g, " ")', () => {
		fc.assert(
			fc.property(textOf(['a', ' ', '\t', '\r', '\n', '\u00a0', '\u2028']), (value) => {
				fc.pre(value !== '');
				expect(inline(value)).toBe(value.replace(/\s*[\r\n]+\s*/g, ' '));
			}),
			RUNS,
		);
	});

	it('fencedBlocks as the fence pattern and, when none closes, the unterminated one', () => {
		const old = (text: string) => {
			const blocks = [...text.matchAll(/```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)```/g)].map(
				(match) => ({ lang: match[1].toLowerCase(), body: match[2].trim() }),
			);
			const open = /```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*)$/.exec(text);
			if (blocks.length === 0 && open)
				blocks.push({ lang: open[1].toLowerCase(), body: open[2].trim() });
			return blocks;
		};
		const fence = fc.constantFrom('```', '```json', '``` JS x', '`');
		const text = fc
			.array(fc.oneof(fence, textOf(['a', '{', '}', ' ', '\n', '`'], 6)), { maxLength: 10 })
			.map((parts) => parts.join(''));
		fc.assert(
			fc.property(text, (value) => {
				expect(fencedBlocks(value)).toEqual(old(value));
			}),
			RUNS,
		);
	});

	it('a Listed Tenants pattern as ^…$ with each * as .* (stars alone, which allow nothing, aside)', () => {
		const old = (pattern: string, tenantId: string) =>
			new RegExp(
				`^${pattern
					.split('*')
					.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
					.join('.*')}$`,
			).test(tenantId);
		fc.assert(
			fc.property(
				textOf(['a', 'b', '-', '*', '.'], 8),
				textOf(['a', 'b', '-', '.'], 10),
				(pattern, tenantId) => {
					fc.pre(tenantId !== '');
					const scope = { kind: SCOPE_LISTED, tenantId: '', patterns: [pattern] };
					const catchAll = /^\*+$/.test(pattern);
					expect(scopeAllows(scope, tenantId)).toBe(!catchAll && old(pattern, tenantId));
				},
			),
			RUNS,
		);
	});
});
