/** The reference server under autocannon against a bare node:http server giving the same answers. */
import {
	call,
	createTenant,
	expectStatus,
	rows,
	SIZES,
	startSite,
	stopChild,
	trackedChild,
	type Site,
} from '../lib/context';
import { CANNON_CONNECTIONS, duel, measure } from '../lib/cannon';
import { pageRequests, type PageMethod } from '../lib/page-requests';
import { round } from '../lib/stats';

/** Bare node:http does no work at all, so the reference server's share of it is the goal. */
const GOALS: Record<PageMethod, { id: string; min: number }> = {
	'POST /api/page': { id: 'server-vs-bare-post', min: 0.3 },
	'GET /api/pages': { id: 'server-vs-bare-get', min: 0.5 },
};

export async function serverRows(site: Site, listToken: string) {
	const token = await createTenant(site, 'bench-cannon');
	// The fixed answers of the bare server are what the reference server answered to the same requests.
	const created = await expectStatus(
		201,
		call(site.url, token, 'POST', '/api/page', {
			name: 'Captured',
			url: '/captured',
			locale: 'en',
		}),
	);
	const listed = await expectStatus(200, call(site.url, listToken, 'GET', '/api/pages'));
	const bare = trackedChild('bare-server-child', {
		BENCH_BARE_RESPONSES: JSON.stringify({
			'POST /api/page': { status: 201, body: created.text },
			'GET /api/pages': { status: 200, body: listed.text },
		}),
	});
	const bareUrl = (await bare.next<{ type: string; url: string }>('ready')).url;

	try {
		for (const kind of ['POST /api/page', 'GET /api/pages'] as const) {
			const { reference, bare: baseline } = await duel(
				kind,
				{
					reference: { label: 'reference server', url: site.url },
					bare: { label: 'bare node:http', url: bareUrl },
				},
				pageRequests(kind, kind === 'POST /api/page' ? token : listToken),
			);
			const ratio = reference.best.rps / baseline.best.rps;
			const goal = GOALS[kind];
			rows.push({
				id: goal.id,
				row: `Reference server ${kind} vs bare node:http, autocannon, ${CANNON_CONNECTIONS} connections`,
				measured: `${round(reference.best.rps, 0)} req/s, p99 ${reference.best.p99} ms`,
				baseline: `bare node:http ${round(baseline.best.rps, 0)} req/s, p99 ${baseline.best.p99} ms`,
				ratio: round(ratio, 2),
				goal: `>= ${goal.min}`,
				pass: ratio >= goal.min,
				figures: {
					seconds: SIZES.cannonSeconds,
					referenceRps: round(reference.best.rps, 0),
					referenceP50Ms: reference.best.p50,
					referenceP99Ms: reference.best.p99,
					bareRps: round(baseline.best.rps, 0),
					bareP50Ms: baseline.best.p50,
					bareP99Ms: baseline.best.p99,
					referenceRuns: reference.runs,
					bareRuns: baseline.runs,
					...(kind === 'GET /api/pages'
						? { tenantPages: SIZES.listPages, responseBytes: listed.text.length }
						: {}),
				},
			});
		}

		// The GET above is answered from the server's cache of rendered listings (--list-cache-mb): the
		// same page, over and over. The same requests to the same data with the cache off show what a
		// listing costs when it is not cached (figures of the same row, not judged).
		await stopChild(site.child);
		const uncached = await startSite({ dataDir: site.dataDir, listCacheMb: 0 });
		const cold = await measure(
			'reference server GET /api/pages, listing cache off',
			uncached.url,
			pageRequests('GET /api/pages', listToken),
		);
		const getRow = rows.find((row) => row.id === GOALS['GET /api/pages'].id);
		if (getRow) {
			getRow.figures.uncachedRps = round(cold.rps, 0);
			getRow.figures.uncachedP99Ms = cold.p99;
			getRow.figures.uncachedRatio = round(cold.rps / Number(getRow.figures.bareRps), 2);
			getRow.measured += `; cache off ${round(cold.rps, 0)} req/s (ratio ${round(cold.rps / Number(getRow.figures.bareRps), 2)})`;
		}
		await stopChild(uncached.child);
	} finally {
		await stopChild(bare);
	}
}
