/** Page Create in n8n's engine: the node against a fetch loop and against n8n's own HTTP helper. */
import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import { createTenant, log, rows, SIZES, type Site } from '../lib/context';
import { tenantCredential } from '../lib/n8n';
import { fetchCreatePages, helperCreatePages, nodeCreatePages } from '../lib/pages';
import { bestOf, round } from '../lib/stats';

const BATCH_SIZE = 8;

export async function pageRows(site: Site, runner: WorkflowRunner) {
	const token = await createTenant(site, 'bench-create');
	const credentials = tenantCredential(runner, site.url, token);
	const n = SIZES.createItems;

	log(`Page Create: warm-up (${SIZES.warmItems} items each way)`);
	await nodeCreatePages(runner, credentials, 'warm-node', SIZES.warmItems);
	await nodeCreatePages(runner, credentials, 'warm-batch', SIZES.warmItems, BATCH_SIZE);
	await fetchCreatePages(site.url, token, 'warm-fetch', SIZES.warmItems);
	await helperCreatePages(runner, credentials, 'warm-helper', SIZES.warmItems);

	log(`Page Create: ${n} items, ${SIZES.repeats} round(s) of fetch / node / node batched / n8n HTTP helper`);
	const { best, all } = await bestOf(
		{
			fetch: (r) => fetchCreatePages(site.url, token, `fetch-${r}`, n),
			node: (r) => nodeCreatePages(runner, credentials, `node-${r}`, n),
			helper: (r) => helperCreatePages(runner, credentials, `helper-${r}`, n),
			batched: (r) => nodeCreatePages(runner, credentials, `batched-${r}`, n, BATCH_SIZE),
		},
		SIZES.repeats,
	);
	const perSecond = (ms: number) => (n / ms) * 1000;
	const fetchRate = perSecond(best.fetch);
	const nodeRate = perSecond(best.node);
	const batchedRate = perSecond(best.batched);
	const helperRate = perSecond(best.helper);
	const ratio = nodeRate / fetchRate;
	rows.push({
		id: 'page-create-sequential',
		row: `Page Create, ${n} items, sequential, in n8n's engine`,
		measured: `${round(nodeRate, 0)} items/s`,
		baseline: `fetch loop ${round(fetchRate, 0)} req/s`,
		ratio: round(ratio, 2),
		goal: '>= 0.9',
		pass: ratio >= 0.9,
		figures: {
			items: n,
			nodeMs: round(best.node, 1),
			fetchMs: round(best.fetch, 1),
			n8nHelperMs: round(best.helper, 1),
			n8nHelperItemsPerSecond: round(helperRate, 0),
			nodeVsN8nHelper: round(nodeRate / helperRate, 2),
			nodeRuns: all.node.join(' '),
			fetchRuns: all.fetch.join(' '),
			n8nHelperRuns: all.helper.join(' '),
		},
	});
	const speedup = batchedRate / nodeRate;
	rows.push({
		id: 'page-create-batching-8',
		row: `Page Create, ${n} items, Batching ${BATCH_SIZE} items at once`,
		measured: `${round(batchedRate, 0)} items/s`,
		baseline: `node sequential ${round(nodeRate, 0)} items/s`,
		ratio: round(speedup, 2),
		goal: '>= 2.5x',
		pass: speedup >= 2.5,
		figures: { items: n, batchSize: BATCH_SIZE, batchedMs: round(best.batched, 1), nodeMs: round(best.node, 1), batchedRuns: all.batched.join(' ') },
	});
}
