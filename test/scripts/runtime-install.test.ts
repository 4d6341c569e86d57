/**
 * The n8n runtime's install (scripts/lib/runtime.js): `npm ci` from tools/n8n-runtime/package-lock.json, so
 * every machine gets the same n8n. Checked without installing: the command, and that the lockfile is
 * one npm ci accepts (every optional dependency of every locked package is itself locked, which is
 * what npm ci reported missing before: "Missing: @msgpackr-extract/...-darwin-arm64 from lock file").
 */
import { readFileSync } from 'fs';
import { join } from 'path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const runtime = require('../../scripts/lib/runtime') as {
	RUNTIME_DIR: string;
	INSTALL_ARGS: string[];
	installsHere(entry: object, platform?: string, arch?: string): boolean;
	installTreeHash(lock?: object, platform?: string, arch?: string): string;
	markerMatches(marker: object, lock?: object): boolean;
};

interface LockEntry {
	version?: string;
	integrity?: string;
	os?: string[];
	cpu?: string[];
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
}
interface Lock {
	packages: Record<string, LockEntry>;
}

const lock = JSON.parse(
	readFileSync(join(runtime.RUNTIME_DIR, 'package-lock.json'), 'utf8'),
) as Lock;
const manifest = JSON.parse(readFileSync(join(runtime.RUNTIME_DIR, 'package.json'), 'utf8')) as {
	dependencies: Record<string, string>;
};

/** Where npm would find `name` for the package at `where` (its own node_modules, then up the tree). */
function resolves(where: string, name: string): boolean {
	let base = where;
	for (;;) {
		if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
		if (base === '') return false;
		const cut = base.lastIndexOf('/node_modules/');
		base = cut === -1 ? '' : base.slice(0, cut);
	}
}

test("the runtime installs with npm ci (the lockfile's packages only), scripts off", () => {
	expect(runtime.INSTALL_ARGS.slice(0, 2)).toEqual(['ci', '--ignore-scripts']);
});

test('the lockfile pins what package.json asks for, and locks every optional dependency (npm ci accepts it)', () => {
	for (const [name, version] of Object.entries(manifest.dependencies)) {
		expect({ name, version: lock.packages[`node_modules/${name}`]?.version }).toEqual({
			name,
			version,
		});
	}
	const missing: string[] = [];
	for (const [where, entry] of Object.entries(lock.packages)) {
		for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
			if (!resolves(where, name)) missing.push(`${name} (for ${where || 'the root'})`);
		}
	}
	expect(missing).toEqual([]);
});

test('an install is out of date when what installs here changes, not when entries for other platforms are added', () => {
	const entry = (extra: Partial<LockEntry>): LockEntry => ({
		version: '1.0.0',
		integrity: 'sha512-a',
		...extra,
	});
	const base = {
		packages: {
			'': {},
			'node_modules/a': entry({}),
			'node_modules/pre-linux': entry({ os: ['linux'], cpu: ['x64'] }),
		},
	};
	const withDarwin = {
		packages: {
			...base.packages,
			'node_modules/pre-darwin': entry({ os: ['darwin'], cpu: ['arm64'] }),
		},
	};
	const bumped = {
		packages: {
			...base.packages,
			'node_modules/a': entry({ version: '1.0.1', integrity: 'sha512-b' }),
		},
	};
	const hash = (value: object) => runtime.installTreeHash(value, 'linux', 'x64');
	expect(hash(withDarwin)).toBe(hash(base));
	expect(hash(bumped)).not.toBe(hash(base));
	expect(runtime.installsHere({ os: ['!win32'] }, 'linux', 'x64')).toBe(true);
	expect(runtime.installsHere({ os: ['!linux'] }, 'linux', 'x64')).toBe(false);
	expect(runtime.installsHere({ cpu: ['arm'] }, 'linux', 'x64')).toBe(false);
});

test('an install marker matches by its tree hash; an older marker (whole-file hash) by the locked n8n and Node versions', () => {
	expect(runtime.markerMatches({ treeHash: runtime.installTreeHash(lock) }, lock)).toBe(true);
	expect(runtime.markerMatches({ treeHash: 'other' }, lock)).toBe(false);
	const n8n = lock.packages['node_modules/n8n'].version;
	const node = lock.packages['node_modules/node'].version;
	expect(runtime.markerMatches({ lockHash: 'old', n8n, node: `v${node}` }, lock)).toBe(true);
	expect(runtime.markerMatches({ lockHash: 'old', n8n: '1.0.0', node: `v${node}` }, lock)).toBe(
		false,
	);
});
