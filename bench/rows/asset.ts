/** A large upload streamed from n8n's binary store: resident memory of both processes, one row. */
import { rows, SIZES } from '../lib/context';
import { round } from '../lib/stats';
import { measureUpload, type MemoryGrowth } from '../lib/upload';

const MEMORY_LIMIT_MB = 64;

const growth = (memory: MemoryGrowth) =>
	`+${round(memory.growthMb, 1)} MB (peak ${round(memory.peakMb, 0)} MB)`;

export async function assetRows() {
	const mb = SIZES.fileMb;
	const { ms, node, server } = await measureUpload(mb);
	rows.push({
		id: 'upload-rss',
		row: `Asset Upload, ${mb} MB binary on disk: RSS growth of the node's process (n8n engine) and of the reference server's`,
		measured: `node ${growth(node)}; server ${growth(server)}`,
		baseline: `RSS before: node ${round(node.baselineMb, 0)} MB, server ${round(server.baselineMb, 0)} MB`,
		// The larger of the two growths: the one the goal hangs on.
		ratio: round(Math.max(node.growthMb, server.growthMb), 1),
		goal: `< ${MEMORY_LIMIT_MB} MB each`,
		pass: node.growthMb < MEMORY_LIMIT_MB && server.growthMb < MEMORY_LIMIT_MB,
		figures: {
			fileMb: mb,
			uploadMs: ms,
			throughput: `${round(mb / (ms / 1000), 0)} MB/s`,
			nodeBaselineMb: round(node.baselineMb, 1),
			nodePeakMb: round(node.peakMb, 1),
			nodeGrowthMb: round(node.growthMb, 1),
			serverBaselineMb: round(server.baselineMb, 1),
			serverPeakMb: round(server.peakMb, 1),
			serverGrowthMb: round(server.growthMb, 1),
		},
	});
}
