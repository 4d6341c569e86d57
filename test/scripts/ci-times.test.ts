/**
 * Where CI's time goes: the timed steps the e2e helpers record (scripts/lib/timings.js) and the
 * report `.ci/run` prints from them with the suites' Jest reports (scripts/ci-times.js). Also the
 * n8n 1.x project of the e2e config names only files that exist.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const timings = require('../../scripts/lib/timings') as {
	record: (kind: string, what: string, ms: number) => void;
	timed: <T>(kind: string, what: string, fn: () => Promise<T>) => Promise<T>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { report } = require('../../scripts/ci-times') as {
	report: (resultsDir: string, timingsFile?: string) => string;
};

let dir: string;
const saved = process.env.SITE_TIMINGS_FILE;
beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'ci-times-'));
});
afterEach(() => {
	rmSync(dir, { recursive: true, force: true });
	if (saved === undefined) delete process.env.SITE_TIMINGS_FILE;
	else process.env.SITE_TIMINGS_FILE = saved;
});

const lines = (file: string) =>
	readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Record<string, unknown>);

test('a timed step is recorded with the test file and test that ran it, also when it throws', async () => {
	const file = join(dir, 'timings.jsonl');
	process.env.SITE_TIMINGS_FILE = file;
	expect(await timings.timed('n8n cli', 'execute', async () => 'done')).toBe('done');
	await expect(
		timings.timed('wait', 'a poll', async () => {
			throw new Error('timed out');
		}),
	).rejects.toThrow('timed out');
	const [cli, wait] = lines(file);
	expect(cli).toMatchObject({
		kind: 'n8n cli',
		what: 'execute',
		file: 'test/scripts/ci-times.test.ts',
		test: expect.stringContaining('a timed step is recorded'),
	});
	expect(wait).toMatchObject({ kind: 'wait', what: 'a poll' });
	expect(typeof cli.ms).toBe('number');
});

test('without SITE_TIMINGS_FILE nothing is written', () => {
	delete process.env.SITE_TIMINGS_FILE;
	timings.record('wait', 'a poll', 5);
	expect(existsSync(join(dir, 'timings.jsonl'))).toBe(false);
});

test("the report gives each file's share of its suite and, inside it, boots, CLI commands and waits", () => {
	const result = (name: string, start: number, end: number, durations: number[]) => ({
		name: join(ROOT, 'e2e', 'n8n', name),
		startTime: start,
		endTime: end,
		assertionResults: durations.map((duration, i) => ({ title: `test ${i}`, duration })),
	});
	writeFileSync(
		join(dir, 'test:n8n.json'),
		JSON.stringify({
			testResults: [
				result('a.e2e.test.js', 0, 75_000, [10_000, 50_000]),
				result('b.e2e.test.js', 75_000, 100_000, [5_000]),
			],
		}),
	);
	const step = (file: string, kind: string, what: string, ms: number, runtime = 'n8n-runtime') =>
		JSON.stringify({ runtime, file: `e2e/n8n/${file}`, kind, what, ms });
	writeFileSync(
		join(dir, 'timings.jsonl'),
		[
			step('a.e2e.test.js', 'n8n boot', 'start', 30_000),
			step('a.e2e.test.js', 'n8n cli', 'import:credentials', 15_000),
			step('a.e2e.test.js', 'wait', 'a poll', 7_500),
			// Another runtime's steps are another suite's.
			step('a.e2e.test.js', 'n8n boot', 'start', 60_000, 'n8n1-runtime'),
		].join('\n'),
	);
	const text = report(dir, join(dir, 'timings.jsonl'));
	expect(text).toContain('### test:n8n: 2 files, 3 tests, 100 s');
	expect(text).toContain(
		'| a.e2e.test.js | 75 % | 40 % | import:credentials 20 % | 10 % | test 1 (67 %) |',
	);
	expect(text).toContain('| b.e2e.test.js | 25 % |  |  |  | test 0 (20 %) |');
});

test('npm run test:n8n1 runs the n8n 1.x project, whose files exist', () => {
	const scripts = (
		JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
			scripts: Record<string, string>;
		}
	).scripts;
	expect(scripts['test:n8n1']).toMatch(/--selectProjects n8n1$/);
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const config = require('../../e2e/jest.config.js') as {
		projects: Array<{ displayName: string; rootDir: string; testMatch: string[] }>;
	};
	const n8n1 = config.projects.find((project) => project.displayName === 'n8n1');
	expect(n8n1?.testMatch.length).toBeGreaterThan(0);
	for (const pattern of n8n1?.testMatch ?? [])
		expect([pattern, existsSync(pattern.replace('<rootDir>', n8n1!.rootDir))]).toEqual([
			pattern,
			true,
		]);
});
