'use strict';
/**
 * Where a suite's wall time goes. With SITE_TIMINGS_FILE set, each timed step (an n8n process
 * until it answers, an n8n CLI command, a wait on a poll) appends one JSON line to that file:
 * `{runtime, file, test, kind, what, ms}`, `file` and `test` from jest when it runs the code.
 * `scripts/ci-times.js` adds them up per suite and file. Without the variable nothing is written.
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');

/** The jest test file and test that is running ({} outside jest). */
function jestPlace() {
	try {
		const state = globalThis.expect?.getState?.() ?? {};
		return {
			file: state.testPath ? path.relative(ROOT, state.testPath) : undefined,
			test: state.currentTestName,
		};
	} catch {
		return {};
	}
}

/** Appends one timed step (see above); `kind` groups steps in the report, `what` names this one. */
function record(kind, what, ms) {
	const file = process.env.SITE_TIMINGS_FILE;
	if (!file) return;
	const runtime = path.basename(process.env.SITE_N8N_RUNTIME_DIR || 'n8n-runtime');
	const line = { runtime, ...jestPlace(), kind, what, ms: Math.round(ms) };
	fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Runs `fn` and records how long it took, whether it resolved or threw. */
async function timed(kind, what, fn) {
	const started = performance.now();
	try {
		return await fn();
	} finally {
		record(kind, what, performance.now() - started);
	}
}

module.exports = { record, timed };
