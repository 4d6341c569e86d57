/**
 * docs/performance.md explains every row the bench writes, and only rows the bench has: each id in
 * the last full run's table (docs/bench/results.md, written by the bench) has a line in one of its
 * tables, and each id those tables list is a row id in bench/rows/.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';

import { ROOT } from './pages';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The ids in the first column of a page's tables: "| `id` | ...". */
const tableIds = (text: string) => [...text.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]);

const explained = tableIds(read('docs/performance.md'));
const benchSource = readdirSync(join(ROOT, 'bench/rows'))
	.map((file) => read(`bench/rows/${file}`))
	.join('\n');

test('performance.md explains every row of the last full run (docs/bench/results.md)', () => {
	const written = tableIds(read('docs/bench/results.md'));
	expect(written.length).toBeGreaterThan(0);
	expect(written.filter((id) => !explained.includes(id))).toEqual([]);
});

test("performance.md's tables list only rows the bench has", () => {
	expect(explained.length).toBeGreaterThan(0);
	expect(explained.filter((id) => !benchSource.includes(`'${id}'`))).toEqual([]);
});
