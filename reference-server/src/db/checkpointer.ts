import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './open';

/**
 * WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1,000 WAL pages: that commit copies the pages into the database file and fsyncs it,
 * on the event loop (one POST in ~200 took 5 to 30 ms here; ~40% of the average write cost, see the
 * docs/performance.md). With automatic checkpoints off, a worker thread with its own
 * connection runs a PASSIVE checkpoint (it never blocks the writer) every intervalMs.
 *
 * Under a steady stream of writes a PASSIVE checkpoint never catches up with the last frame, and
 * SQLite only starts the WAL file over once one has: the WAL grew by ~50 MB/s under the bench's
 * POSTs. So once it holds more than truncateAfterFrames, the thread runs a TRUNCATE checkpoint,
 * which holds new writes back while it copies what the passive ones left (a few ms) and empties
 * the file. A writer that never pauses at all could keep the thread from getting in; for that case
 * SQLite's own checkpoint stays on at four times that size, where it finds nearly every page
 * copied already and only has to finish.
 */
export interface Checkpointer {
	stop(): Promise<void>;
}

/** The worker's whole program; `eval` keeps it independent of where the compiled files are. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
// Waiting long for the writer would hold SQLite's checkpoint lock and shut out the writer's own
// backstop checkpoint; a TRUNCATE that cannot get in soon goes on as a passive one.
db.pragma('busy_timeout = 20');
let failures = 0;
const timer = setInterval(() => {
	try {
		const [state] = db.pragma('wal_checkpoint(PASSIVE)');
		if (state && state.log > workerData.truncateAfterFrames) db.pragma('wal_checkpoint(TRUNCATE)');
		failures = 0;
	} catch (error) {
		// A busy or failing checkpoint is retried at the next tick; the WAL only grows meanwhile.
		if (++failures === 1) parentPort.postMessage({ type: 'error', message: String(error && error.message) });
	}
}, workerData.intervalMs);
parentPort.on('message', (message) => {
	if (message !== 'stop') return;
	clearInterval(timer);
	db.close();
	parentPort.close();
});
`;

export interface CheckpointerOptions {
	intervalMs: number;
	/** WAL frames (pages of 4 KB) above which the file is emptied. */
	truncateAfterFrames: number;
	onError?: (message: string) => void;
}

export function startCheckpointer(
	db: SqliteDatabase,
	file: string,
	options: CheckpointerOptions,
): Checkpointer {
	const onError = options.onError ?? (() => undefined);
	const worker = new Worker(WORKER_SOURCE, {
		eval: true,
		workerData: {
			file,
			intervalMs: options.intervalMs,
			truncateAfterFrames: options.truncateAfterFrames,
			driver: require.resolve('better-sqlite3'),
		},
	});
	worker.unref();
	worker.on('message', (message: { type: string; message: string }) => {
		if (message.type === 'error') onError(message.message);
	});
	// Without the worker, SQLite's own checkpoints come back, so the WAL never grows unbounded.
	worker.on('error', (error) => {
		if (db.open) db.pragma('wal_autocheckpoint = 1000');
		onError(error.message);
	});
	db.pragma(`wal_autocheckpoint = ${Math.min(4 * options.truncateAfterFrames, 2 ** 31 - 1)}`);
	return {
		async stop() {
			const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
			worker.postMessage('stop');
			await exited;
		},
	};
}
