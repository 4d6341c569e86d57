'use strict';
/**
 * Reads n8n's Postgres database (the queue-mode stack's): executions per workflow and what their
 * trigger received. Uses the `pg` client n8n itself ships in tools/n8n-runtime/ (nothing added to the root).
 */
const path = require('node:path');

const { RUNTIME_MODULES } = require('../runtime');

/** A connected pg client with a few queries on n8n's tables. */
async function pgClient({ host, port, user, password, database }) {
	const { Client } = require(path.join(RUNTIME_MODULES, 'pg'));
	const client = new Client({ host, port, user, password, database });
	await client.connect();
	const { parse } = require(path.join(RUNTIME_MODULES, 'flatted'));
	return {
		end: () => client.end(),
		query: (text, values) => client.query(text, values),
		/** Executions of a workflow by status, e.g. {success: 300}. */
		async executionStatuses(workflowId) {
			const { rows } = await client.query(
				'SELECT status, COUNT(*)::int AS n FROM execution_entity WHERE "workflowId" = $1 GROUP BY status',
				[workflowId],
			);
			return Object.fromEntries(rows.map((row) => [row.status, row.n]));
		},
		/** How many executions of a workflow started from each submission_id its trigger node output. */
		async executionsPerSubmission(workflowId, triggerName) {
			const { rows } = await client.query(
				'SELECT d.data FROM execution_entity e JOIN execution_data d ON d."executionId" = e.id WHERE e."workflowId" = $1',
				[workflowId],
			);
			const counts = new Map();
			for (const row of rows) {
				const item = parse(row.data).resultData?.runData?.[triggerName]?.[0]?.data?.main?.[0]?.[0]
					?.json;
				if (item?.submission_id)
					counts.set(item.submission_id, (counts.get(item.submission_id) ?? 0) + 1);
			}
			return counts;
		},
	};
}

module.exports = { pgClient };
