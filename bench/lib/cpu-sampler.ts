/**
 * Preloaded into the real n8n's `n8n execute` process (NODE_OPTIONS=--require, lib/real-n8n.ts): writes
 * the process's CPU time (all its threads, so SQLite and crypto on libuv's pool count too) every 10 ms
 * to BENCH_CPU_SAMPLES, as "epochMs cpuMicroseconds" lines. A node's CPU per item is then read between
 * its start and end in the run data: unlike its wall time, that hardly moves with the machine's load.
 * Only in the CLI process itself, not in the task runner n8n may start.
 */
import { openSync, writeSync } from 'fs';

const file = process.env.BENCH_CPU_SAMPLES;
if (file && process.argv.includes('execute')) {
	const fd = openSync(file, 'a');
	const sample = () => {
		const { user, system } = process.cpuUsage();
		writeSync(fd, `${Date.now()} ${user + system}\n`);
	};
	setInterval(sample, 10).unref();
	process.on('exit', sample);
}
