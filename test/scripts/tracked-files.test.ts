/**
 * What the repository tracks: no installed dependencies and no symbolic links. A tracked link at
 * tools/n8n-runtime/node_modules (a working copy's shortcut to a shared install) once made every clone's
 * runtime install fail with ELOOP; `node_modules/` in .gitignore matched directories only, not links.
 */
import { execFileSync } from 'child_process';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');

/** `git ls-files --stage`: one entry per tracked file with its mode (120000 is a symbolic link). */
function trackedEntries(): Array<{ mode: string; path: string }> {
	const out = execFileSync('git', ['ls-files', '--stage', '-z'], {
		cwd: ROOT,
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
	});
	return out
		.split('\0')
		.filter(Boolean)
		.map((line) => {
			const [meta, path] = line.split('\t');
			return { mode: meta.split(' ')[0], path };
		});
}

test('no tracked file is a symbolic link or lies inside a node_modules folder', () => {
	const entries = trackedEntries();
	expect(entries.length).toBeGreaterThan(100);
	expect(entries.filter((entry) => entry.mode === '120000').map((entry) => entry.path)).toEqual([]);
	expect(
		entries
			.filter((entry) => entry.path.split('/').includes('node_modules'))
			.map((entry) => entry.path),
	).toEqual([]);
});

test('.gitignore ignores node_modules whether it is a folder or a link', () => {
	const ignored = (path: string) => {
		try {
			execFileSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT });
			return true;
		} catch {
			return false;
		}
	};
	// Without a trailing slash the pattern also matches a file or a link of that name.
	for (const path of [
		'node_modules',
		'tools/n8n-runtime/node_modules',
		'tools/n8n1-runtime/node_modules',
		'reference-server/node_modules',
	]) {
		expect([path, ignored(path)]).toEqual([path, true]);
	}
});
