'use strict';
/**
 * Reading what a test run left: the items of a node, the runs of an AI tool node, token-shaped
 * strings in a text, the tokens a tenant holds on the reference server, n8n's stored run data and
 * the executions n8n stored for a workflow.
 */
const path = require('node:path');

const runtime = require('../../../scripts/lib/runtime');
const n8nCommands = require('../../../scripts/lib/n8n');
const { parseFlatted } = require('../../../scripts/lib/rest');
const stack = require('../../../scripts/lib/stack');

/** What a token of the service looks like (admin `sat_…`, tenant `stt_…`). */
const TOKEN_PATTERN = /\b(?:sat|stt)_[A-Za-z0-9_-]{20,}/g;

/** The one item a node gave in a run (fails the test when it gave more or none). */
function oneItem(run, node) {
	const items = n8nCommands.nodeItems(run, node);
	expect(items).toHaveLength(1);
	return items[0];
}

/** The runs of a tool node (its output goes to the agent on ai_tool, not main). */
function toolRuns(run, node) {
	return (run.data.resultData.runData[node] ?? []).map((nodeRun) => ({
		error: nodeRun.error?.message,
		output: nodeRun.data?.ai_tool?.[0]?.map((item) => item.json),
	}));
}

/** Token-shaped strings, and any of the known `secrets`, found in a text. */
function leaks(text, secrets) {
	const found = new Set(text.match(TOKEN_PATTERN) ?? []);
	for (const secret of secrets) if (text.includes(secret)) found.add(secret);
	return [...found];
}

/** How many tokens (revoked ones too) a tenant of an in-process reference server was issued. */
function tokenCount(server, tenantId) {
	return server.app.site.store.db
		.prepare(
			'SELECT COUNT(*) AS n FROM tokens k JOIN tenants t ON t.pk = k.tenant_pk WHERE t.id = ?',
		)
		.get(tenantId).n;
}

/**
 * The executions n8n stored in a user folder for a workflow that have ended, with their data, oldest
 * first: [{ id, mode, status, run }] (n8n 1.x may mark an execution ended a moment before its data
 * is saved: those are left for the next look).
 */
function endedExecutions(userFolder, workflowId) {
	const db = stack.openN8nDatabase(userFolder);
	try {
		return db
			.prepare(
				`SELECT e.id, e.mode, e.status, d.data FROM execution_entity e
				 JOIN execution_data d ON d.executionId = e.id
				 WHERE e.workflowId = ? AND e.status NOT IN ('new', 'running', 'waiting', 'unknown')
				 ORDER BY CAST(e.id AS INTEGER)`,
			)
			.all(workflowId)
			.map((row) => ({
				id: String(row.id),
				mode: row.mode,
				status: row.status,
				run: { data: parseFlatted(row.data) },
			}))
			.filter((execution) => execution.run.data?.resultData?.lastNodeExecuted);
	} finally {
		db.close();
	}
}

/**
 * The n8n version the runtime pins. Its package.json is in the repository, so this works on a fresh
 * clone before the runtime is installed (test/scripts/e2e-files-load.test.ts).
 */
const pinnedN8nVersion = () =>
	require(path.join(runtime.RUNTIME_DIR, 'package.json')).dependencies.n8n;

module.exports = {
	oneItem,
	toolRuns,
	leaks,
	tokenCount,
	parseFlatted,
	endedExecutions,
	pinnedN8nVersion,
};
