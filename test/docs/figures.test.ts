/**
 * No count or measured figure typed by hand where it goes stale unseen: test counts and step counts
 * change with the tests, and benchmark figures belong in the files the bench writes
 * (docs/bench/results.md), which the docs point at. A page that needs a figure links to its source.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { PAGES, ROOT } from './pages';

const NUMBER =
	'(?:\\d[\\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty)';

const RULES: Array<{ what: string; pattern: RegExp }> = [
	{
		what: 'a count of tests or steps',
		pattern: new RegExp(`\\b${NUMBER}\\s+(?:[\\w-]+\\s+){0,2}?(?:tests|steps)\\b`, 'gi'),
	},
	{
		what: 'a count of benchmark runs',
		pattern: new RegExp(`\\b(?:over|in|of)\\s+${NUMBER}\\s+(?:full\\s+)?runs\\b`, 'gi'),
	},
	{
		what: 'a measured rate',
		pattern:
			/\d[\d,.]*\s*k?\s*(?:req|requests|items|pages|submissions|executions|deliveries)\/s\b/gi,
	},
	{ what: 'a measured percentile', pattern: /\bp(?:50|95|99)\s+\d/gi },
	{
		what: 'a measured range of times',
		pattern: /\b\d+(?:\.\d+)?\s*[-–]\s*\d+(?:\.\d+)?\s*(?:ms|µs|k)\b/gi,
	},
];

/** Every hit of every rule in a page, as "line: text (what)"; code blocks are left out. */
function handTyped(page: string): string[] {
	const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
	const hits: string[] = [];
	let inCode = false;
	lines.forEach((line, index) => {
		if (line.trimStart().startsWith('```')) inCode = !inCode;
		if (inCode) return;
		for (const { what, pattern } of RULES)
			for (const match of line.matchAll(pattern))
				hits.push(`${page}:${index + 1}: "${match[0]}" (${what})`);
	});
	return hits;
}

test.each(PAGES)('%s types no test count or measured figure by hand', (page) => {
	expect(handTyped(page)).toEqual([]);
});

test('the rules catch what they are for', () => {
	const caught = (text: string) => RULES.some(({ pattern }) => text.match(pattern) !== null);
	for (const text of [
		'Nineteen tests in two files',
		'the same 13 end-to-end tests',
		'it passes all five steps',
		'over 7 full runs',
		'moved between 20.9k and 32.2k req/s',
		'p50 24 ms',
		'from 3.2-5.2 to 2.6-4 ms',
	])
		expect([text, caught(text)]).toEqual([text, true]);
	for (const text of ['the server answering 5 ms late', 'p99 < 200 ms', 'about 4 to 6 minutes'])
		expect([text, caught(text)]).toEqual([text, false]);
});
