/** Resident memory of a process, read from Linux's /proc (no cooperation of the process needed). */
import { readFileSync, writeFileSync } from 'fs';

const MB = 1024 * 1024;

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
	if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
	return (Number(match[1]) * 1024) / MB;
}

/** Current resident set size in MB. */
export const rssMb = (pid: number) => statusField(pid, 'VmRSS');

/**
 * Resets the kernel's peak-RSS counter (VmHWM) to the current RSS ("5" into clear_refs, Linux 4.0+),
 * so that VmHWM afterwards is the peak of what follows. Returns false where that is not allowed.
 */
export function resetPeak(pid: number): boolean {
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
		return true;
	} catch {
		return false;
	}
}

export const peakMb = (pid: number) => statusField(pid, 'VmHWM');

/**
 * Samples RSS of each pid every `intervalMs` until stopped; the peak is the larger of the highest
 * sample and the kernel's VmHWM (reset at start), so short spikes between samples are not missed.
 */
export function sampleMemory(pids: number[], intervalMs = 20) {
	const baseline = new Map<number, number>();
	const peak = new Map<number, number>();
	const hwmReset = new Map<number, boolean>();
	for (const pid of pids) {
		const samples = [rssMb(pid), rssMb(pid), rssMb(pid)];
		baseline.set(pid, Math.min(...samples));
		hwmReset.set(pid, resetPeak(pid));
		peak.set(pid, baseline.get(pid)!);
	}
	const sample = () => {
		for (const pid of pids) {
			try {
				peak.set(pid, Math.max(peak.get(pid)!, rssMb(pid)));
			} catch {
				// the process is gone; its last samples stand
			}
		}
	};
	const timer = setInterval(sample, intervalMs);
	return {
		stop() {
			clearInterval(timer);
			sample();
			return pids.map((pid) => {
				let hwm: number | undefined;
				if (hwmReset.get(pid)) {
					try {
						hwm = peakMb(pid);
					} catch {
						hwm = undefined;
					}
				}
				const top = Math.max(peak.get(pid)!, hwm ?? 0);
				return {
					pid,
					baselineMb: baseline.get(pid)!,
					peakMb: top,
					growthMb: top - baseline.get(pid)!,
				};
			});
		},
	};
}
