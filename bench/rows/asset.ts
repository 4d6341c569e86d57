/** A large upload streamed from n8n's binary store: resident memory of both processes. */
import { once } from 'events';
import { randomBytes } from 'crypto';
import { createWriteStream, rmSync } from 'fs';
import { join } from 'path';

import { createTenant, log, rows, SIZES, startSite, stopChild, tempDir, trackedChild } from '../lib/context';
import { sampleMemory } from '../lib/proc';
import { round } from '../lib/stats';

const MEMORY_LIMIT_MB = 64;

/** A file of `mb` megabytes written in 1 MB chunks (never held whole in memory). */
async function writeLargeFile(path: string, mb: number) {
	const chunk = randomBytes(1024 * 1024);
	const out = createWriteStream(path);
	for (let i = 0; i < mb; i++) {
		chunk[0] = i & 0xff; // not one repeated megabyte throughout
		if (!out.write(chunk)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
}

export async function assetRows() {
	const mb = SIZES.fileMb;
	// A fresh server for this row, so its memory is not that of the earlier rows' work.
	const site = await startSite({ maxUploadMb: mb + 1 });
	const uploader = trackedChild('asset-child');
	try {
		const token = await createTenant(site, 'bench-assets');
		const file = join(tempDir('bench-file-'), 'large.bin');
		log(`Asset Upload: writing a ${mb} MB file`);
		await writeLargeFile(file, mb);

		uploader.send({ type: 'start', baseUrl: site.url, token, filePath: file });
		await uploader.next('ready', 120_000);
		// Let both processes settle before the baseline is read.
		await new Promise((resolve) => setTimeout(resolve, 500));
		log(`Asset Upload: ${mb} MB, streamed from n8n's binary store on disk`);
		const sampler = sampleMemory([uploader.pid, site.child.pid]);
		uploader.send({ type: 'go' });
		const done = await uploader.next<{ type: string; ms: number; output: { size?: number } | null }>('done', 15 * 60_000);
		const [node, server] = sampler.stop();
		if (done.output?.size !== mb * 1024 * 1024) throw new Error(`upload stored ${done.output?.size} bytes, expected ${mb * 1024 * 1024}`);
		rmSync(file, { force: true });

		const rate = `${round(mb / (done.ms / 1000), 0)} MB/s`;
		for (const [id, label, memory] of [
			['asset-upload-node-rss', "node's process (n8n engine)", node],
			['asset-upload-server-rss', 'reference server process', server],
		] as const) {
			rows.push({
				id,
				row: `Asset Upload, ${mb} MB binary on disk: RSS growth of the ${label}`,
				measured: `+${round(memory.growthMb, 1)} MB (peak ${round(memory.peakMb, 0)} MB)`,
				baseline: `RSS before: ${round(memory.baselineMb, 0)} MB`,
				ratio: round(memory.growthMb, 1),
				goal: `< ${MEMORY_LIMIT_MB} MB`,
				pass: memory.growthMb < MEMORY_LIMIT_MB,
				figures: { fileMb: mb, uploadMs: done.ms, throughput: rate, baselineMb: round(memory.baselineMb, 1), peakMb: round(memory.peakMb, 1), growthMb: round(memory.growthMb, 1) },
			});
		}
	} finally {
		await stopChild(uploader);
		await stopChild(site.child);
	}
}
