/**
 * CI is described once, in docs/development.md's "CI" section, and fully: every npm script `.ci/run`
 * runs is named there, and so is every command of the CI workflow GitHub runs on pull requests.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { ROOT } from './pages';

const section = (() => {
	const text = readFileSync(join(ROOT, 'docs/development.md'), 'utf8');
	const start = text.indexOf('\n## CI\n');
	const end = text.indexOf('\n## ', start + 1);
	return start < 0 ? '' : text.slice(start, end < 0 ? undefined : end);
})();

/** The npm scripts `.ci/run` runs: `npm ci`, `npm test`, `npm run <script>` and its `run_jest <script>` steps. */
function ciScripts(): string[] {
	const script = readFileSync(join(ROOT, '.ci/run'), 'utf8');
	const names = new Set<string>();
	for (const [, name] of script.matchAll(/\bnpm run ([\w:-]+)/g)) names.add(`npm run ${name}`);
	for (const [, name] of script.matchAll(/^\s*run_jest ([\w:-]+)/gm))
		names.add(name === 'test' ? 'npm test' : `npm run ${name}`);
	if (/\bnpm ci\b/.test(script)) names.add('npm ci');
	// npm test started as a background job (`background test … npm test …`).
	if (/^[^#\n]*\bnpm test\b/m.test(script)) names.add('npm test');
	return [...names].sort();
}

test('docs/development.md has a CI section', () => {
	expect(section).toMatch(/^\n## CI\n/);
});

test('the CI section names every npm script .ci/run runs', () => {
	const scripts = ciScripts();
	expect(scripts).toEqual(expect.arrayContaining(['npm ci', 'npm test', 'npm run build']));
	expect(scripts.filter((name) => !section.includes(`\`${name}`))).toEqual([]);
});

test('the CI section names the workflow GitHub runs on pull requests, and every command it runs', () => {
	const workflow = '.github/workflows/ci.yml';
	expect(section).toContain(workflow);
	const commands = [
		...readFileSync(join(ROOT, workflow), 'utf8').matchAll(
			/^\s*(?:-\s*)?run: (npm (?:ci|test|run [\w:-]+))/gm,
		),
	].map((m) => m[1]);
	expect(commands).toEqual(expect.arrayContaining(['npm ci', 'npm test']));
	expect(commands.filter((command) => !section.includes(`\`${command}`))).toEqual([]);
});
