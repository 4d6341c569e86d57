/**
 * The reference server against the mock servers a user would otherwise start for end-to-end tests
 * (Stoplight Prism on our OpenAPI document, json-server on a db file), the same requests under
 * autocannon. The reference server gets the conditions of the server rows (rows/server.ts): the bench's
 * site options, the listing of a tenant with SIZES.listPages pages, creates into a fresh tenant.
 */
import {
	call,
	createTenant,
	expectStatus,
	rows,
	SIZES,
	startSite,
	stopChild,
} from '../lib/context';
import { CANNON_CONNECTIONS, duel } from '../lib/cannon';
import { pageRequests, type PageMethod } from '../lib/page-requests';
import { startJsonServer, startPrism, type Peer } from '../lib/peer-servers';
import { seedPages } from '../lib/seed';
import { round } from '../lib/stats';

const GOAL = 2;
const IDS: Record<PageMethod, string> = {
	'POST /api/page': 'server-vs-peers-post',
	'GET /api/pages': 'server-vs-peers-get',
};

/** What json-server holds for a method: nothing to create into; for the listing, the seeded pages as the reference server shows them. */
function jsonServerPages(kind: PageMethod, listing: unknown): object[] {
	if (kind === 'POST /api/page') return [];
	const template = (listing as { data: object[] }).data[0];
	return Array.from({ length: SIZES.listPages }, (_, i) => ({
		...template,
		id: i + 1,
		name: `Seeded ${i}`,
		url: `/seeded/${i}`,
		locale: i % 2 ? 'en' : 'de',
	}));
}

/** One request as autocannon sends it: checks that a server takes it as valid, and gives the size of the answer. */
async function answerBytes(url: string, kind: PageMethod, token: string): Promise<number> {
	const spec = pageRequests(kind, token).requests![0];
	const request = spec.setupRequest ? spec.setupRequest(spec, {}) : spec;
	const response = await fetch(`${url}${request.path}`, {
		method: request.method,
		headers: request.headers,
		body: request.body,
	});
	const body = await response.text();
	if (!response.ok)
		throw new Error(`${kind} at ${url}: HTTP ${response.status} ${body.slice(0, 300)}`);
	// Prism answers 2xx to a request that breaks the document too (--errors false), and names the breaches here.
	const violations = response.headers.get('sl-violations');
	if (violations)
		throw new Error(`${kind} at ${url}: the mock found the request invalid: ${violations}`);
	return Buffer.byteLength(body);
}

export async function serverPeerRows(): Promise<void> {
	const site = await startSite({ deliveryRetryBaseMs: 100 });
	const peers: Peer[] = [];
	try {
		// Seeded inside the server (lib/seed.ts): the same rows as creates over HTTP, in a second instead of a quarter minute.
		const listToken = await createTenant(site, 'bench-list');
		const [prism] = await Promise.all([
			startPrism(site),
			seedPages(site, 'bench-list', SIZES.listPages),
		]);
		peers.push(prism);
		const createToken = await createTenant(site, 'bench-cannon');
		const listing = (await expectStatus(200, call(site.url, listToken, 'GET', '/api/pages'))).json;

		for (const kind of ['POST /api/page', 'GET /api/pages'] as const) {
			const token = kind === 'POST /api/page' ? createToken : listToken;
			// A json-server per method: its db starts as the reference server's tenant does.
			const jsonServer = await startJsonServer(jsonServerPages(kind, listing));
			peers.push(jsonServer);
			const bytes = {
				reference: await answerBytes(site.url, kind, token),
				prism: await answerBytes(prism.url, kind, token),
				jsonServer: await answerBytes(jsonServer.url, kind, token),
			};
			const {
				reference,
				prism: p,
				jsonServer: j,
			} = await duel(
				kind,
				{ reference: { label: 'reference server', url: site.url }, prism, jsonServer },
				pageRequests(kind, token),
			);
			await stopChild(jsonServer.child);
			peers.splice(peers.indexOf(jsonServer), 1);

			const vsPrism = reference.best.rps / p.best.rps;
			const vsJsonServer = reference.best.rps / j.best.rps;
			rows.push({
				id: IDS[kind],
				row: `Reference server ${kind} vs Prism mock and json-server, autocannon, ${CANNON_CONNECTIONS} connections`,
				measured: `${round(reference.best.rps, 0)} req/s, p99 ${reference.best.p99} ms`,
				baseline: `Prism ${round(p.best.rps, 0)} req/s (x${round(vsPrism, 1)}); json-server ${round(j.best.rps, 0)} req/s (x${round(vsJsonServer, 1)})`,
				// The smaller of the two ratios: the one the goal hangs on.
				ratio: round(Math.min(vsPrism, vsJsonServer), 2),
				goal: `>= ${GOAL} against each`,
				pass: vsPrism >= GOAL && vsJsonServer >= GOAL,
				figures: {
					seconds: SIZES.cannonSeconds,
					referenceRps: round(reference.best.rps, 0),
					referenceP99Ms: reference.best.p99,
					prismRps: round(p.best.rps, 0),
					prismP99Ms: p.best.p99,
					jsonServerRps: round(j.best.rps, 0),
					jsonServerP99Ms: j.best.p99,
					ratioVsPrism: round(vsPrism, 2),
					ratioVsJsonServer: round(vsJsonServer, 2),
					referenceRuns: reference.runs,
					prismRuns: p.runs,
					jsonServerRuns: j.runs,
					referenceResponseBytes: bytes.reference,
					prismResponseBytes: bytes.prism,
					jsonServerResponseBytes: bytes.jsonServer,
					...(kind === 'GET /api/pages' ? { tenantPages: SIZES.listPages } : {}),
				},
			});
		}
	} finally {
		for (const peer of peers) await stopChild(peer.child);
		await stopChild(site.child);
	}
}
