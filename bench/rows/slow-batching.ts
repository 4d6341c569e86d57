/** Batching against a server 5 ms away: where the node waits on the network, not on the CPU. */
import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import { createTenant, log, rows, SIZES, startSite, stopChild } from '../lib/context';
import { tenantCredential } from '../lib/n8n';
import { nodeCreatePages } from '../lib/pages';
import { bestOf, round } from '../lib/stats';

const BATCH_SIZE = 8;
/** The batching row is repeated against a server that answers this much later (latency-bound). */
const SLOW_SERVER_DELAY_MS = 5;

/**
 * The batching row again, against a server that answers SLOW_SERVER_DELAY_MS later: there the
 * sequential node waits on the network, and batching shows how far it overlaps requests when the
 * client's CPU is not the limit (figures only; the goal applies to the loopback row).
 */
export async function slowServerBatchingRow(runner: WorkflowRunner) {
	const site = await startSite({}, SLOW_SERVER_DELAY_MS);
	try {
		const token = await createTenant(site, 'bench-slow');
		const credentials = tenantCredential(runner, site.url, token);
		const n = SIZES.slowItems;
		log(`Page Create against a server answering ${SLOW_SERVER_DELAY_MS} ms later: ${n} items, sequential and Batching ${BATCH_SIZE}`);
		await nodeCreatePages(runner, credentials, 'slow-warm', 20, BATCH_SIZE);
		const { best, all } = await bestOf(
			{
				node: (r) => nodeCreatePages(runner, credentials, `slow-node-${r}`, n),
				batched: (r) => nodeCreatePages(runner, credentials, `slow-batched-${r}`, n, BATCH_SIZE),
			},
			SIZES.repeats,
		);
		const nodeRate = (n / best.node) * 1000;
		const batchedRate = (n / best.batched) * 1000;
		rows.push({
			id: 'page-create-batching-8-slow-server',
			row: `Page Create, ${n} items, Batching ${BATCH_SIZE} items at once, server ${SLOW_SERVER_DELAY_MS} ms away`,
			measured: `${round(batchedRate, 0)} items/s`,
			baseline: `node sequential ${round(nodeRate, 0)} items/s`,
			ratio: round(batchedRate / nodeRate, 2),
			goal: 'figures only',
			pass: null,
			figures: { items: n, batchSize: BATCH_SIZE, delayMs: SLOW_SERVER_DELAY_MS, batchedMs: round(best.batched, 1), nodeMs: round(best.node, 1), nodeRuns: all.node.join(' '), batchedRuns: all.batched.join(' ') },
		});
	} finally {
		await stopChild(site.child);
	}
}
