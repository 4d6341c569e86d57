/**
 * Every end-to-end file loads on a fresh clone: no n8n runtime installed yet and no package build.
 * Jest runs files in an order of its own (file size when it has no timings, as on a clean CI
 * machine), so any file may be the one whose beforeAll installs the runtime; a file that read the
 * runtime (or dist/) when it loaded failed CI with ENOENT before that install began.
 *
 * Each runtime folder is copied as a fresh clone has it (its package.json and lockfile, no
 * node_modules) and every e2e file is loaded with a test-name filter that matches no test, so jest
 * loads the files and runs no hook.
 */
import { execFile } from 'child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';

const ROOT = join(__dirname, '..', '..');
const JEST = join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');

interface JestJson {
	numTotalTestSuites: number;
	numFailedTestSuites: number;
	testResults: Array<{ name: string; status: string; message: string }>;
}

/** A runtime folder as a fresh clone has it: the tracked files only. */
function freshRuntime(parent: string, name: string): string {
	const dir = join(parent, name);
	mkdirSync(dir);
	for (const file of readdirSync(join(ROOT, 'tools', name))) {
		if (file.endsWith('.json')) copyFileSync(join(ROOT, 'tools', name, file), join(dir, file));
	}
	return dir;
}

async function loadEveryE2eFile(runtimeDir: string, outputFile: string): Promise<JestJson> {
	await promisify(execFile)(
		process.execPath,
		[
			JEST,
			'-c',
			'e2e/jest.config.js',
			'--testNamePattern',
			'^no test has this name$',
			'--json',
			`--outputFile=${outputFile}`,
		],
		{
			cwd: ROOT,
			// No package build either (README: npm ci, then npm test): e2e files read dist/ in beforeAll.
			env: { ...process.env, SITE_N8N_RUNTIME_DIR: runtimeDir, FORCE_COLOR: '0' },
			maxBuffer: 64 * 1024 * 1024,
		},
	).catch((error: { code?: number }) => {
		// Jest exits 1 when a file fails to load; the JSON says which.
		if (error.code !== 1) throw error;
	});
	return JSON.parse(readFileSync(outputFile, 'utf8')) as JestJson;
}

let parent: string;
beforeAll(() => {
	parent = mkdtempSync(join(tmpdir(), 'site-e2e-load-'));
});
afterAll(() => rmSync(parent, { recursive: true, force: true }));

test.each(['n8n-runtime', 'n8n1-runtime'])(
	'every e2e file loads with %s not installed',
	async (name) => {
		const result = await loadEveryE2eFile(freshRuntime(parent, name), join(parent, `${name}.json`));
		const failed = result.testResults
			.filter((file) => file.status === 'failed')
			.map((file) => ({ file: file.name.slice(ROOT.length + 1), message: file.message }));
		expect(failed).toEqual([]);
		expect(result.numTotalTestSuites).toBeGreaterThanOrEqual(10);
	},
	// A guard against a hang, not a speed goal: loading every file took over 120 s at a load average of 15
	// (CI installs the n8n runtimes while this suite runs).
	300_000,
);
