/**
 * The reference server under autocannon against bare node:http servers giving the same answers: one
 * that stores nothing (the ceiling of any server on this machine, figures only) and, for POST, one
 * that inserts each body into SQLite before answering (the limit of a durable server: judged), and one
 * that also stores each answer under the request's Idempotency-Key (the limit for the POSTs the Tenant
 * node sends: a figure).
 */
import { join } from 'path';

import {
	call,
	createTenant,
	expectStatus,
	rows,
	SIZES,
	startSite,
	stopChild,
	tempDir,
	trackedChild,
	type Site,
} from '../lib/context';
import {
	CANNON_CONNECTIONS,
	duel,
	measure,
	type CannonContestant,
	type DuelResult,
} from '../lib/cannon';
import { pageRequests, type PageMethod } from '../lib/page-requests';
import { round } from '../lib/stats';

/** null: a figure (bare node:http does no work at all, so no server's share of it is a goal). */
const GOALS: Record<PageMethod, { id: string; min: number | null }> = {
	'POST /api/page': { id: 'server-vs-bare-post', min: null },
	'GET /api/pages': { id: 'server-vs-bare-get', min: 0.5 },
};
const DURABLE_POST_GOAL = 0.5;

interface StoreSettings {
	journalMode: string;
	synchronous: string;
}

/** `durable`: a store of its own (bare-server-child.ts), `keyed` to keep answers under their key. */
function startBare(
	responses: Record<string, { status: number; body: string }>,
	durable?: { keyed: boolean },
) {
	return trackedChild('bare-server-child', {
		BENCH_BARE_RESPONSES: JSON.stringify(responses),
		...(durable ? { BENCH_BARE_DB: join(tempDir('bare-durable-'), 'bodies.db') } : {}),
		...(durable?.keyed ? { BENCH_BARE_KEYED: '1' } : {}),
	});
}

const cannonFigures = (prefix: string, result: DuelResult) => ({
	[`${prefix}Rps`]: round(result.best.rps, 0),
	[`${prefix}P50Ms`]: result.best.p50,
	[`${prefix}P99Ms`]: result.best.p99,
	[`${prefix}Runs`]: result.runs,
});

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
	const responses = {
		'POST /api/page': { status: 201, body: created.text },
		'GET /api/pages': { status: 200, body: listed.text },
	};
	const bare = startBare(responses);
	const durable = startBare(responses, { keyed: false });
	const durableKeyed = startBare(responses, { keyed: true });

	try {
		const bareUrl = (await bare.next<{ type: string; url: string }>('ready')).url;
		const durableReady = await durable.next<{ type: string; url: string; store: StoreSettings }>(
			'ready',
		);
		const durableKeyedUrl = (await durableKeyed.next<{ type: string; url: string }>('ready')).url;
		for (const kind of ['POST /api/page', 'GET /api/pages'] as const) {
			const post = kind === 'POST /api/page';
			const contestants: Record<string, CannonContestant> = {
				reference: { label: 'reference server', url: site.url },
				bare: { label: 'bare node:http', url: bareUrl },
			};
			// Only a POST writes; the durable server would answer a GET as the bare one does.
			if (post) {
				contestants.durable = { label: 'node:http + SQLite insert', url: durableReady.url };
				// The same requests, Idempotency-Key included, to a bare server that stores what the
				// reference server must: the body and the answer under its key, committed together.
				contestants.durableKeyed = {
					label: 'node:http + SQLite insert + answer under its key',
					url: durableKeyedUrl,
				};
				// The same server without Idempotency-Key: what storing each answer for replay costs.
				contestants.referenceNoKey = {
					label: 'reference server, no Idempotency-Key',
					url: site.url,
					options: pageRequests(kind, token, { idempotencyKey: false }),
				};
			}
			const results = await duel(kind, contestants, pageRequests(kind, post ? token : listToken));
			const { reference, bare: baseline } = results;
			const ratio = reference.best.rps / baseline.best.rps;
			const goal = GOALS[kind];
			rows.push({
				id: goal.id,
				row: `Reference server ${kind} vs bare node:http, autocannon, ${CANNON_CONNECTIONS} connections`,
				measured: `${round(reference.best.rps, 0)} req/s, p99 ${reference.best.p99} ms`,
				baseline: `bare node:http ${round(baseline.best.rps, 0)} req/s, p99 ${baseline.best.p99} ms`,
				ratio: round(ratio, 2),
				goal: goal.min === null ? 'figures only' : `>= ${goal.min}`,
				pass: goal.min === null ? null : ratio >= goal.min,
				figures: {
					seconds: SIZES.cannonSeconds,
					...cannonFigures('reference', reference),
					...cannonFigures('bare', baseline),
					...(post ? {} : { tenantPages: SIZES.listPages, responseBytes: listed.text.length }),
				},
			});
			if (post) {
				const durableRatio = reference.best.rps / results.durable.best.rps;
				const keyedRatio = round(reference.best.rps / results.durableKeyed.best.rps, 2);
				const { journalMode, synchronous } = durableReady.store;
				rows.push({
					id: 'server-vs-durable-post',
					row: `Reference server POST /api/page (with Idempotency-Key) vs node:http storing the same two records in SQLite (the body and the answer under its key, one commit; journal ${journalMode}, synchronous ${synchronous}), autocannon, ${CANNON_CONNECTIONS} connections`,
					measured: `${round(reference.best.rps, 0)} req/s, p99 ${reference.best.p99} ms; against node:http storing only the body (one insert, ${round(results.durable.best.rps, 0)} req/s): ${round(durableRatio, 2)}`,
					baseline: `node:http + SQLite, two records ${round(results.durableKeyed.best.rps, 0)} req/s, p99 ${results.durableKeyed.best.p99} ms`,
					ratio: keyedRatio,
					goal: `>= ${DURABLE_POST_GOAL}`,
					pass: keyedRatio >= DURABLE_POST_GOAL,
					figures: {
						seconds: SIZES.cannonSeconds,
						...cannonFigures('reference', reference),
						...cannonFigures('durable', results.durable),
						...cannonFigures('referenceNoKey', results.referenceNoKey),
						noKeyRatio: round(results.referenceNoKey.best.rps / results.durable.best.rps, 2),
						...cannonFigures('durableKeyed', results.durableKeyed),
						oneInsertRatio: round(durableRatio, 2),
						journalMode,
						synchronous,
					},
				});
			}
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
		await Promise.all([stopChild(bare), stopChild(durable), stopChild(durableKeyed)]);
	}
}
