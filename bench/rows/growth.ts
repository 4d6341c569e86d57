/**
 * How the nodes' cost grows with size: Page > Get Many over ever more pages, and ever larger uploads.
 * Each curve is a row with a goal, its points in the figures.
 */
import { createTenant, log, quick, rows, startSite, stopChild, type Site } from '../lib/context';
import { createRunner, tenantCredential } from '../lib/n8n';
import { fetchListPages, nodeListPages } from '../lib/pages';
import { seedPages } from '../lib/seed';
import { bestOf, round } from '../lib/stats';
import { measureUpload } from '../lib/upload';

const GROWTH = quick
	? {
			listPages: [1_000, 5_000],
			samplePages: 5_000,
			rounds: 3,
			uploadMb: [16, 64],
		}
	: {
			listPages: [1_000, 10_000, 100_000],
			samplePages: 10_000,
			rounds: 3,
			uploadMb: [64, 512, 2_048],
		};

/** Goals: time per page at the largest size within this factor of the smallest... */
const PER_PAGE_FACTOR = 1.5;
/** ...and an upload's RSS growth under this, in either process, at every size. */
const MEMORY_LIMIT_MB = 64;

/** A tenant with `count` pages seeded by the server's store; returns its token. */
async function seededTenant(site: Site, id: string, count: number) {
	const token = await createTenant(site, id);
	const ms = await seedPages(site, id, count);
	log(`growth: seeded ${count} pages in ${ms} ms`);
	return token;
}

/**
 * Get Many, return all, through n8n's engine, and the same requests as a plain fetch loop (which
 * tells the node's share of any growth from the server's): best of GROWTH.rounds samples each, every
 * size and contestant in one ABBA sequence so a drift of the machine's load hits all alike. A sample
 * lists at least GROWTH.samplePages pages (a small tenant several times over), so that one GC pause
 * does not decide a small size's figure.
 */
async function getManyCurve(site: Site): Promise<void> {
	const runner = createRunner();
	const sizes = GROWTH.listPages;
	const tenants = new Map<
		number,
		{ token: string; credentials: ReturnType<typeof tenantCredential> }
	>();
	for (const n of sizes) {
		const token = await seededTenant(site, `growth-${n}`, n);
		tenants.set(n, { token, credentials: tenantCredential(runner, site.url, token) });
	}
	const tenant = (n: number) => tenants.get(n)!;

	log('growth: Get Many warm-up');
	for (let i = 0; i < 3; i++) {
		await nodeListPages(runner, tenant(sizes[0]).credentials, sizes[0]);
		await fetchListPages(site.url, tenant(sizes[0]).token, sizes[0]);
	}
	log(
		`growth: Get Many over ${sizes.join(' / ')} pages, node and fetch loop, ${GROWTH.rounds} rounds`,
	);
	const times = (n: number) => Math.ceil(GROWTH.samplePages / n);
	const sample = (n: number, list: () => Promise<number>) => async () => {
		let ms = 0;
		for (let i = 0; i < times(n); i++) ms += await list();
		return ms;
	};
	const { best, all } = await bestOf(
		Object.fromEntries(
			sizes.flatMap((n) => [
				[`node${n}`, sample(n, () => nodeListPages(runner, tenant(n).credentials, n))],
				[`fetch${n}`, sample(n, () => fetchListPages(site.url, tenant(n).token, n))],
			]),
		),
		GROWTH.rounds,
	);
	const usPerPage = (ms: number, pages: number) => round((ms / (pages * times(pages))) * 1000, 2);
	const points = sizes.map((pages) => ({
		pages,
		nodeUs: usPerPage(best[`node${pages}`], pages),
		fetchUs: usPerPage(best[`fetch${pages}`], pages),
	}));
	const first = points[0];
	const last = points[points.length - 1];
	const factor = last.nodeUs / first.nodeUs;
	rows.push({
		id: 'growth-get-many',
		row: `Page Get Many, return all, ${sizes.join(' / ')} pages: time per page`,
		measured: points.map((p) => `${p.nodeUs}`).join(' / ') + ' µs',
		baseline: `fetch loop ${points.map((p) => `${p.fetchUs}`).join(' / ')} µs`,
		ratio: round(factor, 2),
		goal: `${last.pages} <= ${PER_PAGE_FACTOR}x ${first.pages}`,
		pass: factor <= PER_PAGE_FACTOR,
		figures: {
			fetchLoopFactor: round(last.fetchUs / first.fetchUs, 2),
			...Object.fromEntries(
				points.flatMap((p) => [
					[`nodeUsPerPage${p.pages}`, p.nodeUs],
					[`fetchUsPerPage${p.pages}`, p.fetchUs],
					[`nodeSamplesMs${p.pages}`, all[`node${p.pages}`].join(' ')],
					[`fetchSamplesMs${p.pages}`, all[`fetch${p.pages}`].join(' ')],
					[`listingsPerSample${p.pages}`, times(p.pages)],
				]),
			),
		},
	});
}

/** One upload per size, each with fresh processes (lib/upload.ts). */
async function uploadCurve(): Promise<void> {
	const points: Array<{ mb: number; seconds: number; nodeMb: number; serverMb: number }> = [];
	for (const mb of GROWTH.uploadMb) {
		const { ms, node, server } = await measureUpload(mb);
		points.push({
			mb,
			seconds: round(ms / 1000, 1),
			nodeMb: round(node.growthMb, 1),
			serverMb: round(server.growthMb, 1),
		});
	}
	const worst = Math.max(...points.flatMap((p) => [p.nodeMb, p.serverMb]));
	rows.push({
		id: 'growth-upload-rss',
		row: `Asset Upload of ${GROWTH.uploadMb.join(' / ')} MB: RSS growth of the node's and the server's process`,
		measured: points.map((p) => `${p.mb} MB: +${p.nodeMb} / +${p.serverMb} MB`).join('; '),
		baseline: 'RSS of each process before the upload',
		ratio: worst,
		goal: `< ${MEMORY_LIMIT_MB} MB at every size`,
		pass: worst < MEMORY_LIMIT_MB,
		figures: Object.fromEntries(
			points.flatMap((p) => [
				[`node${p.mb}Mb`, p.nodeMb],
				[`server${p.mb}Mb`, p.serverMb],
				[`seconds${p.mb}Mb`, p.seconds],
			]),
		),
	});
}

export async function growthRows(): Promise<void> {
	const site = await startSite();
	try {
		await getManyCurve(site);
	} finally {
		await stopChild(site.child);
	}
	await uploadCurve();
}
