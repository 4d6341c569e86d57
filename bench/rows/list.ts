/** Page Get Many, return all: the node against a paginating fetch loop and n8n's own helper. */
import type { WorkflowRunner } from '../../test/harness/workflow-runner';
import { call, createTenant, expectStatus, log, rows, SIZES, type Site } from '../lib/context';
import { tenantCredential } from '../lib/n8n';
import { fetchListPages, helperListPages, nodeListPages } from '../lib/pages';
import { bestOf, pool, round } from '../lib/stats';

/** A tenant with SIZES.listPages pages (half of them German); returns its token. */
export async function seedListTenant(site: Site): Promise<string> {
	const token = await createTenant(site, 'bench-list');
	log(`Page Get Many: seeding ${SIZES.listPages} pages`);
	await pool(SIZES.listPages, 16, async (i) => {
		await expectStatus(
			201,
			call(site.url, token, 'POST', '/api/page', {
				name: `Listed ${i}`,
				url: `/listed/${i}`,
				locale: i % 2 ? 'en' : 'de',
			}),
		);
	});
	return token;
}

/** Options > Concurrency for the prefetching contestant. */
const PREFETCH = 8;

export async function listRows(site: Site, runner: WorkflowRunner) {
	const token = await seedListTenant(site);
	const credentials = tenantCredential(runner, site.url, token);
	const n = SIZES.listPages;

	log('Page Get Many: warm-up');
	await nodeListPages(runner, credentials, n);
	await fetchListPages(site.url, token, n);
	await helperListPages(runner, credentials, n);

	log(`Page Get Many: return all over ${n} pages, ${SIZES.nodeRepeats} round(s)`);
	const { best, all } = await bestOf(
		{
			fetch: () => fetchListPages(site.url, token, n),
			node: () => nodeListPages(runner, credentials, n),
			helper: () => helperListPages(runner, credentials, n),
			window: () => nodeListPages(runner, credentials, n, PREFETCH),
		},
		SIZES.nodeRepeats,
	);
	// Figures: the fetch loop keeps one connection alive, which n8n's helper never does.
	const ratio = best.fetch / best.node;
	rows.push({
		id: 'page-get-many',
		row: `Page Get Many, return all, ${n} pages, one page after the other`,
		measured: `${round(best.node, 0)} ms (${round((n / best.node) * 1000, 0)} pages/s)`,
		baseline: `paginating fetch loop ${round(best.fetch, 0)} ms`,
		ratio: round(ratio, 2),
		goal: 'figures only',
		pass: null,
		figures: {
			pages: n,
			requests: Math.ceil(n / 100),
			nodeMs: round(best.node, 1),
			fetchMs: round(best.fetch, 1),
			n8nHelperMs: round(best.helper, 1),
			nodeVsN8nHelper: round(best.helper / best.node, 2),
			nodeRuns: all.node.join(' '),
			// Pages after the first fetched PREFETCH at a time (the default).
			prefetchMs: round(best.window, 1),
			prefetchVsSequential: round(best.node / best.window, 2),
			prefetchRuns: all.window.join(' '),
			fetchRuns: all.fetch.join(' '),
			n8nHelperRuns: all.helper.join(' '),
		},
	});
	return token;
}
