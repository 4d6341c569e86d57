/**
 * The structure the guarantees rely on, read from the sources: one place calls n8n's HTTP helpers
 * (the sender's strategies), no node folder reaches into another's, credentials import shared code
 * only, and an item's target travels as an argument, not through module-level state.
 */
import fs from 'fs';
import path from 'path';

const ROOT = path.join(__dirname, '../../..');

function sourcesUnder(folder: string): string[] {
	return fs
		.readdirSync(path.join(ROOT, folder), { recursive: true, encoding: 'utf8' })
		.filter((file) => file.endsWith('.ts'))
		.map((file) => path.join(folder, file));
}

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** Each relative import of a file, resolved to a path from the repository's root. */
function importsOf(file: string): string[] {
	return [...read(file).matchAll(/from '(\.[^']*)'/g)].map(([, target]) =>
		path.normalize(path.join(path.dirname(file), target)),
	);
}

const topFolder = (file: string) => file.split(path.sep).slice(0, 2).join('/');

test("n8n's HTTP helpers are called in nodes/shared/auth.ts only", () => {
	const callers = sourcesUnder('nodes').filter((file) =>
		/helpers\.(httpRequest|httpRequestWithAuthentication|request)\b/.test(read(file)),
	);
	expect(callers).toEqual(['nodes/shared/auth.ts']);
});

test("no node folder imports from another node's folder", () => {
	const crossing = sourcesUnder('nodes').flatMap((file) =>
		importsOf(file)
			.filter((target) => target.startsWith('nodes/'))
			.filter((target) => ![topFolder(file), 'nodes/shared'].includes(topFolder(target)))
			.map((target) => `${file} -> ${target}`),
	);
	expect(crossing).toEqual([]);
});

test('credentials import only shared code', () => {
	const crossing = sourcesUnder('credentials').flatMap((file) =>
		importsOf(file)
			.filter((target) => !['nodes/shared', 'credentials/shared'].includes(topFolder(target)))
			.map((target) => `${file} -> ${target}`),
	);
	expect(crossing).toEqual([]);
});

test('the router, the target and the sender keep no module-level maps', () => {
	const withMaps = [
		'nodes/shared/router.ts',
		'nodes/shared/target.ts',
		'nodes/shared/transport.ts',
	].filter((file) => /^(const|let) \w+ = new (Weak)?Map\b/m.test(read(file)));
	expect(withMaps).toEqual([]);
});
