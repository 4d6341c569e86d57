import { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from './open';

/**
 * WAL checkpoints on a thread of their own. SQLite's automatic checkpoint runs inside whichever
 * commit crosses 1,000 WAL pages: that commit copies the pages into the database file and fsyncs it,
 * on the event loop (one POST in ~200 took 5 to 30 ms here; ~40% of the average write cost, see the
 * README's Performance section). With automatic checkpoints off, a worker thread with its own
 * connection runs a PASSIVE checkpoint (it never blocks the writer) every intervalMs.
 */
export interface Checkpointer {
	stop(): Promise<void>;
}

/** The worker's whole program; `eval` keeps it independent of where the compiled files are. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
let failures = 0;
const timer = setInterval(() => {
	try {
		db.pragma('wal_checkpoint(PASSIVE)');
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

export function startCheckpointer(
	db: SqliteDatabase,
	file: string,
	intervalMs: number,
	onError: (message: string) => void = () => undefined,
): Checkpointer {
	const worker = new Worker(WORKER_SOURCE, {
		eval: true,
		workerData: { file, intervalMs, driver: require.resolve('better-sqlite3') },
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
	db.pragma('wal_autocheckpoint = 0');
	return {
		async stop() {
			const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
			worker.postMessage('stop');
			await exited;
		},
	};
}
