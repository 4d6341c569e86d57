#!/usr/bin/env node
'use strict';
/**
 * Where the suites' wall time went, as proportions: for each suite (a jest `--json` report in
 * RESULTS_DIR, named after its npm script), each file's share of the suite and, inside the file, the
 * shares of n8n boots, n8n CLI commands and waits on polls, from the timed steps that
 * scripts/lib/timings.js wrote to TIMINGS_FILE (SITE_TIMINGS_FILE of the run). `.ci/run` prints it at
 * its end; docs/development.md keeps one such table.
 *
 *   node scripts/ci-times.js RESULTS_DIR [TIMINGS_FILE]
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

const percent = (part, whole) => (whole > 0 ? `${Math.round((100 * part) / whole)} %` : '');
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

function readSuites(dir) {
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const report = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
			const files = report.testResults.map((result) => ({
				file: path.relative(ROOT, result.name),
				ms: result.endTime - result.startTime,
				tests: result.assertionResults.length,
				slowest: result.assertionResults.reduce(
					(top, test) => ((test.duration ?? 0) > (top?.duration ?? -1) ? test : top),
					undefined,
				),
			}));
			const start = Math.min(...report.testResults.map((result) => result.startTime));
			const end = Math.max(...report.testResults.map((result) => result.endTime));
			return { name: file.replace(/\.json$/, ''), wallMs: end - start, files };
		});
}

function readTimings(file) {
	if (!file || !fs.existsSync(file)) return [];
	return fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => JSON.parse(line));
}

/** The timed steps of one test file on one runtime, summed by kind (CLI commands by subcommand). */
function stepsOf(timings, file, runtime) {
	const sums = {};
	for (const step of timings) {
		if (step.file !== file || (runtime && step.runtime !== runtime)) continue;
		const kind = step.kind === 'n8n cli' ? `n8n ${step.what}` : step.kind;
		sums[kind] = (sums[kind] ?? 0) + step.ms;
	}
	return sums;
}

/** The runtime a suite ran on: test:n8n1 on n8n 1.x, the others on the default runtime. */
const runtimeOf = (suite) => (suite === 'test:n8n1' ? 'n8n1-runtime' : 'n8n-runtime');

function report(resultsDir, timingsFile) {
	const timings = readTimings(timingsFile);
	const lines = [];
	for (const suite of readSuites(resultsDir)) {
		const total = suite.files.reduce((sum, file) => sum + file.ms, 0);
		lines.push(
			'',
			`### ${suite.name}: ${suite.files.length} files, ${suite.files.reduce((n, f) => n + f.tests, 0)} tests, ${seconds(suite.wallMs)}`,
			'',
			'| file | share | n8n boots | n8n CLI | waits | slowest test |',
			'| --- | --- | --- | --- | --- | --- |',
		);
		for (const file of [...suite.files].sort((a, b) => b.ms - a.ms)) {
			const steps = stepsOf(timings, file.file, runtimeOf(suite.name));
			const cli = Object.entries(steps)
				.filter(([kind]) => kind.startsWith('n8n ') && kind !== 'n8n boot')
				.map(([kind, ms]) => `${kind.slice(4)} ${percent(ms, file.ms)}`)
				.join(', ');
			const slowest = file.slowest
				? `${file.slowest.title.slice(0, 60)} (${percent(file.slowest.duration, file.ms)})`
				: '';
			lines.push(
				`| ${path.basename(file.file)} | ${percent(file.ms, total)} | ${steps['n8n boot'] ? percent(steps['n8n boot'], file.ms) : ''} | ${cli} | ${steps.wait ? percent(steps.wait, file.ms) : ''} | ${slowest} |`,
			);
		}
	}
	return lines.join('\n');
}

if (require.main === module) {
	const [resultsDir, timingsFile] = process.argv.slice(2);
	if (!resultsDir) {
		console.error('usage: node scripts/ci-times.js RESULTS_DIR [TIMINGS_FILE]');
		process.exit(2);
	}
	console.log(report(resultsDir, timingsFile));
}

module.exports = { report };
