'use strict';
/**
 * `npm run build` only when its inputs changed since the last build: `npm start` right after
 * `npm ci`, or after a pull, builds; a second start does not. `npm run build` records a hash of its
 * inputs in dist/.build-inputs.json as its last step. The inputs are hashed by content, not by time,
 * so a checkout that only touches files' times does not rebuild and an edit always does.
 */
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
// The stamp sits in dist/ (never packed: package.json's `files` lists dist/nodes and dist/credentials).
const STAMP = path.join(ROOT, 'dist', '.build-inputs.json');
/** What `npm run build` reads: the package (tsc + gulp) and the reference server (its own tsc). */
const INPUT_DIRS = ['nodes', 'credentials', path.join('reference-server', 'src')];
const INPUT_FILES = [
	'package.json',
	'tsconfig.json',
	'gulpfile.js',
	path.join('reference-server', 'package.json'),
	path.join('reference-server', 'tsconfig.json'),
];
/** What a build leaves: checked as well, so a deleted dist/ rebuilds even with the stamp kept elsewhere. */
const OUTPUTS = [path.join('reference-server', 'dist', 'index.js')];

function listFiles(dir) {
	const absolute = path.join(ROOT, dir);
	if (!fs.existsSync(absolute)) return [];
	return fs
		.readdirSync(absolute, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)));
}

/** SHA-256 over the inputs' paths and contents, in a stable order. */
function inputsHash() {
	const hash = crypto.createHash('sha256');
	const files = [...INPUT_DIRS.flatMap(listFiles), ...INPUT_FILES].sort();
	for (const file of files) {
		hash.update(`${file}\0`);
		hash.update(fs.existsSync(path.join(ROOT, file)) ? fs.readFileSync(path.join(ROOT, file)) : '');
		hash.update('\0');
	}
	return hash.digest('hex');
}

/** The built files n8n loads (package.json's `n8n` section) and the reference server's entry. */
function outputs() {
	const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	return [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? []), ...OUTPUTS];
}

/** Whether the last build is of these very inputs: `{ upToDate, hash, reason }`. */
function buildStatus() {
	const hash = inputsHash();
	const missing = outputs().filter((file) => !fs.existsSync(path.join(ROOT, file)));
	if (missing.length > 0) return { upToDate: false, hash, reason: `${missing[0]} is missing` };
	let stamp;
	try {
		stamp = JSON.parse(fs.readFileSync(STAMP, 'utf8'));
	} catch {
		return { upToDate: false, hash, reason: 'no record of an earlier build' };
	}
	return stamp.hash === hash
		? { upToDate: true, hash }
		: { upToDate: false, hash, reason: 'sources changed since the last build' };
}

function runBuild() {
	return new Promise((resolve, reject) => {
		const child = spawn('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
		child.on('error', reject);
		child.on('exit', (code, signal) =>
			code === 0
				? resolve()
				: reject(new Error(`npm run build failed (${signal ?? `exit ${code}`})`)),
		);
	});
}

/** Records that the build is of the current sources (`npm run build` ends with it). */
function recordBuild() {
	fs.mkdirSync(path.dirname(STAMP), { recursive: true });
	fs.writeFileSync(
		STAMP,
		`${JSON.stringify({ hash: inputsHash(), builtAt: new Date().toISOString() })}\n`,
	);
}

/** Builds unless the last build is of the current sources; resolves with whether it built. */
async function ensureBuilt({ log = console.log } = {}) {
	const status = buildStatus();
	if (status.upToDate) {
		log('the package is built from the current sources (no build needed)');
		return false;
	}
	log(`building the package (npm run build: ${status.reason})`);
	await runBuild();
	return true;
}

if (require.main === module && process.argv[2] === 'record') recordBuild();

module.exports = { ensureBuilt };
