/**
 * A figure, not a goal: the reference server against Prism's mock of the server's own OpenAPI
 * document, the same simple requests at the same concurrency (keep-alive fetch from this process),
 * both on loopback, in ABBA rounds. The server is sized for the nodes' tests, not for throughput;
 * this says it still answers faster than a mock generated from its document.
 */
import { randomUUID } from 'crypto';

import {
	call,
	createTenant,
	expectStatus,
	log,
	quick,
	rows,
	startSite,
	stopChild,
} from '../lib/context';
import { startPrismMock } from '../lib/prism';
import { seedPages } from '../lib/seed';
import { pool, round, timed } from '../lib/stats';

const REQUESTS = quick ? 500 : 3_000;
const CONCURRENCY = 10;
const ROUNDS = 2;
const TENANT = 'prism-bench';
const SEEDED_PAGES = 100;

interface Route {
	id: string;
	label: string;
	/** One request; `i` makes each POST's page url its own, so the server creates every one. */
	send: (base: string, token: string, i: number, round: number) => ReturnType<typeof call>;
}

const ROUTES: Route[] = [
	{
		id: 'server-vs-prism-get',
		label: 'GET /api/pages?per_page=20',
		send: (base, token) => call(base, token, 'GET', '/api/pages?per_page=20'),
	},
	{
		id: 'server-vs-prism-post',
		label: 'POST /api/page',
		send: (base, token, i, r) =>
			call(base, token, 'POST', '/api/page', {
				name: `Prism bench ${i}`,
				url: `/prism-${r}-${i}-${randomUUID().slice(0, 8)}`,
				locale: 'en',
			}),
	},
];

/** Requests per second of REQUESTS requests, CONCURRENCY at a time; every answer must be a success. */
async function rate(route: Route, base: string, token: string, r: number): Promise<number> {
	const { ms } = await timed(() =>
		pool(REQUESTS, CONCURRENCY, async (i) => {
			const response = await route.send(base, token, i, r);
			if (response.status < 200 || response.status > 299)
				throw new Error(
					`${route.id}: ${base} answered ${response.status}: ${response.text.slice(0, 300)}`,
				);
		}),
	);
	return (REQUESTS / ms) * 1000;
}

export async function serverVsPrismRows(): Promise<void> {
	const site = await startSite();
	const token = await createTenant(site, TENANT);
	await seedPages(site, TENANT, SEEDED_PAGES);
	const document = (await expectStatus(200, call(site.url, token, 'GET', '/openapi.json'))).json;
	if (!document) throw new Error('server-vs-prism: the server sent no OpenAPI document');
	const prism = await startPrismMock(document);
	try {
		for (const route of ROUTES) {
			const server: number[] = [];
			const mock: number[] = [];
			// Warm both (JIT, connections) before the measured rounds.
			await rate(route, site.url, token, -1);
			await rate(route, prism.url, token, -1);
			for (let r = 0; r < ROUNDS; r++) {
				const serverFirst = r % 2 === 0;
				if (serverFirst) server.push(await rate(route, site.url, token, r));
				mock.push(await rate(route, prism.url, token, r));
				if (!serverFirst) server.push(await rate(route, site.url, token, r));
			}
			const best = (list: number[]) => Math.max(...list);
			const ratio = best(server) / best(mock);
			rows.push({
				id: route.id,
				row: `${route.label}, ${REQUESTS} requests ${CONCURRENCY} at a time on loopback: reference server vs Prism's mock of its OpenAPI document`,
				measured: `server ${round(best(server), 0)}/s`,
				baseline: `Prism mock ${round(best(mock), 0)}/s`,
				ratio: round(ratio, 2),
				goal: 'figure only',
				pass: null,
				figures: {
					requests: REQUESTS,
					concurrency: CONCURRENCY,
					serverRuns: server.map((x) => round(x, 0)).join(' '),
					prismRuns: mock.map((x) => round(x, 0)).join(' '),
				},
			});
			log(
				`${route.id}: server ${server.map((x) => round(x, 0)).join(' ')}/s, Prism ${mock.map((x) => round(x, 0)).join(' ')}/s, ratio ${round(ratio, 2)}`,
			);
		}
	} finally {
		await prism.stop();
		await stopChild(site.child);
	}
}
