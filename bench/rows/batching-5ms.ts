/**
 * Concurrency 8 with a server 5 ms away. Judged against its floor: a bare node keeping 8 requests in
 * flight through n8n's helper, the fastest any node that follows n8n's rules can be there
 * (`batching-5ms-vs-floor`). Against Concurrency 1 (`batching-5ms`) it is a figure: at 8 in flight
 * n8n's CPU per item, not the 5 ms, bounds both the node and its floor.
 */
import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import {
	call,
	createTenant,
	expectStatus,
	log,
	rows,
	SIZES,
	startSite,
	stopChild,
} from '../lib/context';
import { tenantCredential } from '../lib/n8n';
import { helperCreatePages, nodeCreatePages, nodeListPages } from '../lib/pages';
import { bestOf, pool, round } from '../lib/stats';

const CONCURRENCY = 8;
const FLOOR_GOAL = 0.9;
/** Every request reaches the server this much later (latency-bound, like a server across a network). */
const SLOW_SERVER_DELAY_MS = 5;

export async function batching5msRow(runner: WorkflowRunner) {
	const site = await startSite({}, SLOW_SERVER_DELAY_MS);
	try {
		const token = await createTenant(site, 'bench-slow');
		const credentials = tenantCredential(runner, site.url, token);
		const n = SIZES.slowItems;
		log(
			`Page Create against a server answering ${SLOW_SERVER_DELAY_MS} ms later: ${n} items, Concurrency 1 and ${CONCURRENCY}`,
		);
		await nodeCreatePages(runner, credentials, 'slow-warm', 20, CONCURRENCY);
		const { best, all } = await bestOf(
			{
				node: (r) => nodeCreatePages(runner, credentials, `slow-node-${r}`, n),
				window: (r) => nodeCreatePages(runner, credentials, `slow-window-${r}`, n, CONCURRENCY),
				// The floor: a bare node keeping CONCURRENCY requests in flight through n8n's helper.
				helper: (r) => helperCreatePages(runner, credentials, `slow-helper-${r}`, n, CONCURRENCY),
			},
			SIZES.nodeRepeats,
		);
		const nodeRate = (n / best.node) * 1000;
		const windowRate = (n / best.window) * 1000;
		const helperRate = (n / best.helper) * 1000;
		const floorRatio = windowRate / helperRate;
		const shared = {
			items: n,
			concurrency: CONCURRENCY,
			delayMs: SLOW_SERVER_DELAY_MS,
			windowMs: round(best.window, 1),
			windowRuns: all.window.join(' '),
		};
		rows.push({
			id: 'batching-5ms-vs-floor',
			row: `Page Create, ${n} items, Concurrency ${CONCURRENCY}, server ${SLOW_SERVER_DELAY_MS} ms away: Tenant node vs a bare node on n8n's HTTP helper at ${CONCURRENCY} in flight`,
			measured: `${round(windowRate, 0)} items/s`,
			baseline: `httpRequestWithAuthentication, ${CONCURRENCY} in flight, ${round(helperRate, 0)} items/s`,
			ratio: round(floorRatio, 2),
			goal: `>= ${FLOOR_GOAL}`,
			pass: floorRatio >= FLOOR_GOAL,
			figures: {
				...shared,
				n8nHelperConcurrentMs: round(best.helper, 1),
				n8nHelperConcurrentRuns: all.helper.join(' '),
			},
		});
		rows.push({
			id: 'batching-5ms',
			row: `Page Create, ${n} items, Concurrency ${CONCURRENCY} vs 1, server ${SLOW_SERVER_DELAY_MS} ms away`,
			measured: `${round(windowRate, 0)} items/s`,
			baseline: `Concurrency 1 ${round(nodeRate, 0)} items/s`,
			ratio: round(windowRate / nodeRate, 2),
			goal: 'figures only',
			pass: null,
			figures: {
				...shared,
				nodeMs: round(best.node, 1),
				nodeRuns: all.node.join(' '),
				n8nHelperConcurrentVsSequentialNode: round(best.node / best.helper, 2),
			},
		});

		// Get Many over the same distance: the pages after the first fetched CONCURRENCY at a time.
		const pages = SIZES.slowItems * 5;
		await pool(pages, 16, async (i) => {
			await expectStatus(
				201,
				call(site.url, token, 'POST', '/api/page', {
					name: `Listed ${i}`,
					url: `/listed/${i}`,
					locale: 'en',
				}),
			);
		});
		const total = pages + SIZES.slowItems * (SIZES.nodeRepeats * 3) + 20;
		log(`Page Get Many against the same server: ${total} pages, Concurrency 1 and ${CONCURRENCY}`);
		const list = await bestOf(
			{
				node: () => nodeListPages(runner, credentials, total),
				window: () => nodeListPages(runner, credentials, total, CONCURRENCY),
			},
			SIZES.nodeRepeats,
		);
		rows.push({
			id: 'get-many-5ms',
			row: `Page Get Many, return all, ${total} pages, Concurrency ${CONCURRENCY} vs 1, server ${SLOW_SERVER_DELAY_MS} ms away`,
			measured: `${round(list.best.window, 0)} ms`,
			baseline: `Concurrency 1 ${round(list.best.node, 0)} ms`,
			ratio: round(list.best.node / list.best.window, 2),
			goal: 'figures only',
			pass: null,
			figures: {
				pages: total,
				requests: Math.ceil(total / 100),
				windowMs: round(list.best.window, 1),
				nodeMs: round(list.best.node, 1),
				nodeRuns: list.all.node.join(' '),
				windowRuns: list.all.window.join(' '),
			},
		});
	} finally {
		await stopChild(site.child);
	}
}
