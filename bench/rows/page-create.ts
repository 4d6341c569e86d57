/**
 * Page Create in n8n's engine. Judged: the node one item at a time against a bare node doing the same
 * through n8n's own HTTP helper (the floor for any node that follows n8n's rules). Figures: the same
 * against a plain fetch loop, and Concurrency 8 against 1 on loopback.
 */
import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import { createTenant, log, rows, SIZES, type Site } from '../lib/context';
import { tenantCredential } from '../lib/n8n';
import { fetchCreatePages, helperCreatePages, nodeCreatePages } from '../lib/pages';
import { bestOf, round } from '../lib/stats';

const CONCURRENCY = 8;

export async function pageRows(site: Site, runner: WorkflowRunner) {
	const token = await createTenant(site, 'bench-create');
	const credentials = tenantCredential(runner, site.url, token);
	const n = SIZES.createItems;

	log(`Page Create: warm-up (${SIZES.warmItems} items each way)`);
	await nodeCreatePages(runner, credentials, 'warm-node', SIZES.warmItems);
	await nodeCreatePages(runner, credentials, 'warm-window', SIZES.warmItems, CONCURRENCY);
	await fetchCreatePages(site.url, token, 'warm-fetch', SIZES.warmItems);
	await helperCreatePages(runner, credentials, 'warm-helper', SIZES.warmItems);

	log(
		`Page Create: ${n} items, ${SIZES.nodeRepeats} round(s) of fetch / node / n8n HTTP helper / node with Concurrency ${CONCURRENCY}`,
	);
	const { best, all } = await bestOf(
		{
			fetch: (r) => fetchCreatePages(site.url, token, `fetch-${r}`, n),
			node: (r) => nodeCreatePages(runner, credentials, `node-${r}`, n),
			helper: (r) => helperCreatePages(runner, credentials, `helper-${r}`, n),
			window: (r) => nodeCreatePages(runner, credentials, `window-${r}`, n, CONCURRENCY),
		},
		SIZES.nodeRepeats,
	);
	const perSecond = (ms: number) => (n / ms) * 1000;
	const fetchRate = perSecond(best.fetch);
	const nodeRate = perSecond(best.node);
	const windowRate = perSecond(best.window);
	const helperRate = perSecond(best.helper);
	const ratio = nodeRate / helperRate;
	rows.push({
		id: 'node-vs-n8n-helper',
		row: `Page Create, ${n} items one at a time, in n8n's engine: Tenant node vs a bare node on n8n's HTTP helper`,
		measured: `${round(nodeRate, 0)} items/s`,
		baseline: `httpRequestWithAuthentication loop ${round(helperRate, 0)} items/s`,
		ratio: round(ratio, 2),
		goal: '>= 0.9',
		pass: ratio >= 0.9,
		figures: {
			items: n,
			nodeMs: round(best.node, 1),
			n8nHelperMs: round(best.helper, 1),
			nodeRuns: all.node.join(' '),
			n8nHelperRuns: all.helper.join(' '),
		},
	});
	rows.push({
		id: 'page-create-vs-fetch',
		row: `Page Create, ${n} items one at a time: Tenant node vs a plain fetch loop (keep-alive, no n8n)`,
		measured: `${round(nodeRate, 0)} items/s`,
		baseline: `fetch loop ${round(fetchRate, 0)} req/s`,
		ratio: round(nodeRate / fetchRate, 2),
		goal: 'figures only',
		pass: null,
		figures: {
			items: n,
			nodeMs: round(best.node, 1),
			fetchMs: round(best.fetch, 1),
			fetchRuns: all.fetch.join(' '),
			n8nHelperVsFetch: round(helperRate / fetchRate, 2),
		},
	});
	rows.push({
		id: 'concurrency-8-loopback',
		row: `Page Create, ${n} items, Concurrency ${CONCURRENCY} vs 1, server on loopback (CPU-bound)`,
		measured: `${round(windowRate, 0)} items/s`,
		baseline: `Concurrency 1 ${round(nodeRate, 0)} items/s`,
		ratio: round(windowRate / nodeRate, 2),
		goal: 'figures only',
		pass: null,
		figures: {
			items: n,
			concurrency: CONCURRENCY,
			windowMs: round(best.window, 1),
			nodeMs: round(best.node, 1),
			windowRuns: all.window.join(' '),
		},
	});
}
