/**
 * n8n's package scanner (@n8n/scan-community-package) against a local registry:
 *
 *   node e2e/install/lib/scan.mjs <scanner dir> <registry url> <name@version> <source dir>
 *
 * The scanner's CLI reads package metadata and provenance attestations from registry.npmjs.org (the
 * address is fixed in its code) and downloads the attested source from GitHub, none of which a local
 * registry can serve. This driver runs the same checks through the scanner's own exported functions:
 *   1. checkPackageProvenance on the metadata the local registry serves (reported; a local publish
 *      has no provenance, the publish workflow adds it on npm);
 *   2. the source leg: analyzePackage(<source dir>, SOURCE_FILE_PATTERNS), what the scanner lints in
 *      the checkout the provenance points at (package.json, nodes/, credentials/);
 *   3. the tarball leg: `npm pack <name@version>` from the registry (npm_config_registry), unpacked,
 *      analyzePackage(<dir>, ['**\/*.js', 'package.json']), as the scanner does.
 * Prints a JSON report on the last line; exits 0 when both legs pass.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [scannerDir, registryUrl, spec, sourceDir] = process.argv.slice(2);
const at = spec.lastIndexOf('@');
const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
const scanner = await import(pathToFileURL(path.join(scannerDir, 'scanner', 'scanner.mjs')).href);
const { checkPackageProvenance } = await import(
	pathToFileURL(path.join(scannerDir, 'scanner', 'provenance.mjs')).href
);

const metadata = await (await fetch(`${registryUrl.replace(/\/$/, '')}/${name}`)).json();
const provenance = checkPackageProvenance(metadata, version);

const sourceResult = await scanner.analyzePackage(sourceDir, scanner.SOURCE_FILE_PATTERNS);

const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-scan-'));
try {
	const packed = spawnSync('npm', ['-q', 'pack', spec], { cwd: workDir, encoding: 'utf8' });
	if (packed.status !== 0) throw new Error(`npm pack ${spec} failed: ${packed.stderr}`);
	const tarball = fs.readdirSync(workDir).find((file) => file.endsWith('.tgz'));
	const packageDir = path.join(workDir, 'package');
	fs.mkdirSync(packageDir);
	const untar = spawnSync('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], {
		cwd: workDir,
		encoding: 'utf8',
	});
	if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`);
	const distResult = await scanner.analyzePackage(packageDir, ['**/*.js', 'package.json']);

	const leg = (result) => ({
		passed: result.passed,
		message: result.message ?? null,
		details: result.details ?? null,
	});
	const report = {
		package: spec,
		provenance: { passed: provenance.passed, message: provenance.message ?? null },
		source: leg(sourceResult),
		tarball: leg(distResult),
	};
	for (const [label, result] of [
		['source (package.json, nodes/, credentials/)', report.source],
		['tarball (dist/**/*.js, package.json)', report.tarball],
	]) {
		console.log(
			`${result.passed ? '✅' : '❌'} ${label}: ${result.passed ? 'no violations' : `${result.message}\n${result.details ?? ''}`}`,
		);
	}
	console.log(
		`${provenance.passed ? '✅' : 'ℹ️ '} provenance: ${provenance.passed ? 'present' : provenance.message}`,
	);
	console.log(JSON.stringify(report));
	process.exitCode = sourceResult.passed && distResult.passed ? 0 : 1;
} finally {
	fs.rmSync(workDir, { recursive: true, force: true });
}
