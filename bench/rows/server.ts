/** The reference server under autocannon against a bare node:http server giving the same answers. */
import autocannon from 'autocannon';
import { randomUUID } from 'crypto';

import { call, createTenant, expectStatus, log, rows, SIZES, startSite, stopChild, trackedChild, type Site } from '../lib/context';
import { round } from '../lib/stats';

const CANNON_CONNECTIONS = 10;

async function cannon(options: autocannon.Options) {
	const result = await autocannon({ connections: CANNON_CONNECTIONS, ...options });
	if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
		throw new Error(`autocannon ${options.url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
	}
	return result;
}

export async function serverRows(site: Site, listToken: string) {
	const token = await createTenant(site, 'bench-cannon');
	// The fixed answers of the bare server are what the reference server answered to the same requests.
	const created = await expectStatus(201, call(site.url, token, 'POST', '/api/page', { name: 'Captured', url: '/captured', locale: 'en' }));
	const listed = await expectStatus(200, call(site.url, listToken, 'GET', '/api/pages'));
	const bare = trackedChild('bare-server-child', {
		BENCH_BARE_RESPONSES: JSON.stringify({
			'POST /api/page': { status: 201, body: created.text },
			'GET /api/pages': { status: 200, body: listed.text },
		}),
	});
	const bareUrl = (await bare.next<{ type: string; url: string }>('ready')).url;

	try {
		let counter = 0;
		/** A new page per request (a repeated url is a 409) and a fresh Idempotency-Key, like the node sends. */
		const postRequests = (tokenForPost: string): autocannon.RequestSpec[] => [
			{
				method: 'POST',
				path: '/api/page',
				setupRequest: (request) => {
					const i = counter++;
					return {
						...request,
						headers: {
							authorization: `Bearer ${tokenForPost}`,
							accept: 'application/json',
							'content-type': 'application/json',
							'idempotency-key': randomUUID(),
						},
						body: JSON.stringify({ name: `Cannon ${i}`, url: `/cannon/${i}`, locale: 'en' }),
					};
				},
			},
		];
		const getHeaders = { authorization: `Bearer ${listToken}`, accept: 'application/json' };

		type Cannonade = { rps: number; p99: number; p50: number; total: number };
		const measure = async (label: string, url: string, options: Partial<autocannon.Options>, warm = true): Promise<Cannonade> => {
			log(`autocannon: ${label} (${warm ? `${SIZES.cannonWarmSeconds} s warm-up, ` : ''}${SIZES.cannonSeconds} s measured, ${CANNON_CONNECTIONS} connections)`);
			if (warm) await cannon({ url, duration: SIZES.cannonWarmSeconds, ...options });
			const result = await cannon({ url, duration: SIZES.cannonSeconds, ...options });
			return { rps: result.requests.average, p99: result.latency.p99, p50: result.latency.p50, total: result.requests.total };
		};
		/** Reference and bare server in ABBA order over SIZES.repeats rounds; each keeps its best round. */
		const duel = async (kind: string, options: Partial<autocannon.Options>) => {
			const runs: Record<'reference' | 'bare', Cannonade[]> = { reference: [], bare: [] };
			const urls = { reference: site.url, bare: bareUrl };
			for (let r = 0; r < SIZES.repeats; r++) {
				const order = r % 2 === 0 ? (['reference', 'bare'] as const) : (['bare', 'reference'] as const);
				for (const who of order) runs[who].push(await measure(`${who === 'bare' ? 'bare node:http' : 'reference server'} ${kind}`, urls[who], options, r === 0));
			}
			const best = (list: Cannonade[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
			const rpsRuns = (list: Cannonade[]) => list.map((r) => round(r.rps, 0)).join(' ');
			return { reference: best(runs.reference), baseline: best(runs.bare), referenceRuns: rpsRuns(runs.reference), bareRuns: rpsRuns(runs.bare) };
		};

		for (const kind of ['POST /api/page', 'GET /api/pages'] as const) {
			const options: Partial<autocannon.Options> =
				kind === 'POST /api/page' ? { requests: postRequests(token) } : { requests: [{ method: 'GET', path: '/api/pages', headers: getHeaders }] };
			const { reference, baseline, referenceRuns, bareRuns } = await duel(kind, options);
			const ratio = reference.rps / baseline.rps;
			rows.push({
				id: kind === 'POST /api/page' ? 'server-post-page' : 'server-get-pages',
				row: `Reference server ${kind}, autocannon, ${CANNON_CONNECTIONS} connections`,
				measured: `${round(reference.rps, 0)} req/s, p99 ${reference.p99} ms`,
				baseline: `bare node:http ${round(baseline.rps, 0)} req/s, p99 ${baseline.p99} ms`,
				ratio: round(ratio, 2),
				goal: '>= 0.5',
				pass: ratio >= 0.5,
				figures: {
					seconds: SIZES.cannonSeconds,
					referenceRps: round(reference.rps, 0),
					referenceP50Ms: reference.p50,
					referenceP99Ms: reference.p99,
					bareRps: round(baseline.rps, 0),
					bareP50Ms: baseline.p50,
					bareP99Ms: baseline.p99,
					referenceRuns,
					bareRuns,
					...(kind === 'GET /api/pages' ? { tenantPages: SIZES.listPages, responseBytes: listed.text.length } : {}),
				},
			});
		}

		// The GET above is answered from the server's cache of rendered listings (--list-cache-mb): the
		// same page, over and over. The same requests to the same data with the cache off show what a
		// listing costs when it is not cached (figures of the same row, not judged).
		await stopChild(site.child);
		const uncached = await startSite({ dataDir: site.dataDir, listCacheMb: 0 });
		const getOptions: Partial<autocannon.Options> = { requests: [{ method: 'GET', path: '/api/pages', headers: getHeaders }] };
		const cold = await measure('reference server GET /api/pages, listing cache off', uncached.url, getOptions);
		const getRow = rows.find((row) => row.id === 'server-get-pages');
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
