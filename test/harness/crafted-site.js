'use strict';
/**
 * A loopback "crafted site" for the Site Management Trigger: it answers `POST /api/sitemap` with
 * whatever the test sets (at once, dripped a byte at a time, or endless) and lists the same pages
 * with their created_at on `GET /api/pages`. Plain CommonJS (types in crafted-site.d.ts) so that
 * both the engine tests (ts-jest) and the real-n8n tests (e2e/, no transform) load it.
 */
const { createServer } = require('node:http');

/** The start of the endless sitemap, then the same page over and over. */
const ENDLESS_HEAD = '{"generated_at":"2030-01-01T12:00:00.000Z","pages":[';
const ENDLESS_CHUNK = '{"url":"/x","updated_at":"2030-01-01T12:00:00.000Z"},'.repeat(1000);

/**
 * Pours the endless sitemap until the client hangs up, writing only as fast as it reads.
 * @param {import('node:http').ServerResponse} response
 */
function pourEndless(response) {
	response.write(ENDLESS_HEAD);
	const chunk = Buffer.from(ENDLESS_CHUNK);
	const pour = () => {
		while (!response.destroyed && response.write(chunk));
		if (!response.destroyed) response.once('drain', pour);
	};
	pour();
}

/**
 * Sends `body` one byte every `dripMs`, until it is all sent or the client hangs up.
 * @param {import('node:http').ServerResponse} response
 * @param {Buffer} body
 * @param {number} dripMs
 */
function drip(response, body, dripMs) {
	let sent = 0;
	const timer = setInterval(() => {
		if (response.destroyed || sent >= body.length) {
			clearInterval(timer);
			if (!response.destroyed) response.end();
			return;
		}
		response.write(body.subarray(sent, sent + 1));
		sent++;
	}, dripMs);
	response.on('close', () => clearInterval(timer));
}

/**
 * Starts a crafted site on 127.0.0.1 (an ephemeral port).
 * @returns {Promise<import('./crafted-site').CraftedSite>}
 */
async function startCraftedSite() {
	/** @type {Set<import('node:net').Socket>} */
	const sockets = new Set();
	/** @type {import('./crafted-site').CraftedSite} */
	const site = {
		url: '',
		sitemap: { generated_at: new Date().toISOString(), pages: [] },
		dripMs: 0,
		endless: false,
		endlessClosed: undefined,
		answers: [],
		close: async () => {},
	};

	/**
	 * One sitemap answer, logged in `site.answers` with when it started and when it ended.
	 * @param {import('node:http').ServerResponse} response
	 */
	const answerSitemap = (response) => {
		/** @type {import('./crafted-site').SitemapAnswer} */
		const answer = { startedAt: Date.now(), endedAt: undefined, whole: false };
		site.answers.push(answer);
		response.on('finish', () => (answer.whole = true));
		response.on('close', () => (answer.endedAt = Date.now()));
		response.writeHead(200, { 'Content-Type': 'application/json' });
		if (site.endless) {
			site.endlessClosed = new Promise((resolve) => response.on('close', () => resolve()));
			pourEndless(response);
			return;
		}
		const body = Buffer.from(JSON.stringify({ tenant_id: 'crafted', ...site.sitemap }));
		if (site.dripMs === 0) response.end(body);
		else drip(response, body, site.dripMs);
	};

	const server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			if (request.method === 'POST' && request.url?.startsWith('/api/sitemap')) {
				answerSitemap(response);
				return;
			}
			if (request.method === 'GET' && request.url?.startsWith('/api/pages')) {
				response.writeHead(200, { 'Content-Type': 'application/json' });
				response.end(JSON.stringify({ data: site.sitemap.pages, meta: { last_page: 1 } }));
				return;
			}
			response.writeHead(404, { 'Content-Type': 'application/json' });
			response.end('{"message":"not here"}');
		});
	});
	server.on('connection', (socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
	const address = /** @type {import('node:net').AddressInfo} */ (server.address());
	site.url = `http://127.0.0.1:${address.port}`;
	site.close = async () => {
		for (const socket of sockets) socket.destroy();
		await new Promise((resolve) => server.close(() => resolve(undefined)));
	};
	return site;
}

module.exports = { startCraftedSite };
