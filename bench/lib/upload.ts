/**
 * One large upload streamed from n8n's binary store by the Tenant node (asset-child.ts) to a fresh
 * reference server, with the resident memory of both processes sampled from /proc meanwhile.
 */
import { once } from 'events';
import { randomBytes } from 'crypto';
import { createWriteStream, rmSync } from 'fs';
import { join } from 'path';

import { createTenant, log, startSite, stopChild, tempDir, trackedChild } from './context';
import { sampleMemory } from './proc';

/** A file of `mb` megabytes written in 1 MB chunks (never held whole in memory). */
export async function writeLargeFile(path: string, mb: number) {
	const chunk = randomBytes(1024 * 1024);
	const out = createWriteStream(path);
	for (let i = 0; i < mb; i++) {
		chunk[0] = i & 0xff; // not one repeated megabyte throughout
		if (!out.write(chunk)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
}

export type MemoryGrowth = ReturnType<ReturnType<typeof sampleMemory>['stop']>[number];

export interface UploadMemory {
	ms: number;
	/** The process running n8n's engine and the node. */
	node: MemoryGrowth;
	server: MemoryGrowth;
}

/** Uploads an `mb` MB file; each call has a server and an n8n process of its own, started for it. */
export async function measureUpload(mb: number): Promise<UploadMemory> {
	// Fresh processes, so that their memory is not that of earlier work.
	// The largest upload is over the default per-tenant quota (1 GB): the quota follows the file.
	const site = await startSite({ maxUploadMb: mb + 1, uploadQuotaMb: mb + 1 });
	const uploaderFolder = tempDir('n8n-bench-user-');
	const uploader = trackedChild('asset-child', { BENCH_N8N_USER_FOLDER: uploaderFolder });
	const fileDir = tempDir('bench-file-');
	try {
		const token = await createTenant(site, 'bench-assets');
		const file = join(fileDir, 'large.bin');
		log(`Asset Upload: writing a ${mb} MB file`);
		await writeLargeFile(file, mb);

		uploader.send({ type: 'start', baseUrl: site.url, token, filePath: file });
		await uploader.next('ready', 120_000);
		// Let both processes settle before the baseline is read.
		await new Promise((resolve) => setTimeout(resolve, 500));
		log(`Asset Upload: ${mb} MB, streamed from n8n's binary store on disk`);
		const sampler = sampleMemory([uploader.pid, site.child.pid]);
		uploader.send({ type: 'go' });
		const done = await uploader.next<{
			type: string;
			ms: number;
			output: { size?: number } | null;
		}>('done', 15 * 60_000);
		const [node, server] = sampler.stop();
		if (done.output?.size !== mb * 1024 * 1024)
			throw new Error(`upload stored ${done.output?.size} bytes, expected ${mb * 1024 * 1024}`);
		return { ms: done.ms, node, server };
	} finally {
		await stopChild(uploader);
		await stopChild(site.child);
		// The file, n8n's and the server's copies of it: gigabytes in the larger runs, not kept until the end.
		rmSync(fileDir, { recursive: true, force: true });
		rmSync(uploaderFolder, { recursive: true, force: true });
		rmSync(site.dataDir, { recursive: true, force: true });
	}
}
