/**
 * What a run leaves behind: bench/results.json (every figure of this run, not committed), and, after a
 * full run of every group, the pages docs/performance.md shows: docs/bench/results.md (this run's
 * table, with each judged row's range over the last full runs). The docs' figures are thus written by
 * the bench, never copied by hand.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import type { Row } from './context';

const BENCH_DIR = join(__dirname, '..', '..', '..');
const DOCS_DIR = join(BENCH_DIR, '..', 'docs', 'bench');
/** The ratios of the last full runs, newest last: the ranges in results.md. */
const HISTORY_FILE = join(DOCS_DIR, 'runs.json');
const RUNS_KEPT = 3;

export interface Results {
	mode: 'quick' | 'full';
	startedAt: string;
	seconds: number;
	machine: {
		cpus: number;
		model: string;
		memoryGb: number;
		node: string;
		platform: string;
		loadAverageBefore: number[];
		loadAverageAfter: number[];
	};
	sizes: Record<string, number>;
	groups: string[];
	rows: Row[];
}

interface RunSummary {
	startedAt: string;
	seconds: number;
	loadAverageBefore: number[];
	ratios: Record<string, { ratio: number | null; pass: boolean | null }>;
}

const verdict = (pass: boolean | null) => (pass === null ? 'info' : pass ? 'PASS' : 'MISS');

export function printTable(list: Row[]) {
	const header = ['Row', 'Measured', 'Baseline', 'Ratio', 'Goal', 'Result'];
	const cells = list.map((r) => [
		r.row,
		r.measured,
		r.baseline,
		r.ratio === null ? '-' : String(r.ratio),
		r.goal,
		verdict(r.pass),
	]);
	const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
	const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
	process.stdout.write(
		[line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join(
			'\n',
		) + '\n',
	);
}

export function writeResults(results: Results) {
	writeFileSync(join(BENCH_DIR, 'results.json'), `${JSON.stringify(results, null, '\t')}\n`);
}

function readHistory(): RunSummary[] {
	if (!existsSync(HISTORY_FILE)) return [];
	return JSON.parse(readFileSync(HISTORY_FILE, 'utf8')) as RunSummary[];
}

/** "0.9-1.2 (3 runs, 3 passed)" for a row over the runs that have it. */
function range(id: string, history: RunSummary[]): string {
	const seen = history
		.map((run) => run.ratios[id])
		.filter((entry) => entry && entry.ratio !== null);
	if (seen.length === 0) return '-';
	const ratios = seen.map((entry) => entry.ratio as number);
	const low = Math.min(...ratios);
	const high = Math.max(...ratios);
	const passed = seen.filter((entry) => entry.pass).length;
	const judged = seen.some((entry) => entry.pass !== null);
	return `${low === high ? low : `${low}-${high}`} (${seen.length} run${seen.length > 1 ? 's' : ''}${judged ? `, ${passed} passed` : ''})`;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** After a full run of every group: docs/bench/results.md and runs.json. */
export function writeDocs(results: Results) {
	const history = [
		...readHistory(),
		{
			startedAt: results.startedAt,
			seconds: results.seconds,
			loadAverageBefore: results.machine.loadAverageBefore,
			ratios: Object.fromEntries(
				results.rows.map((row) => [row.id, { ratio: row.ratio, pass: row.pass }]),
			),
		},
	].slice(-RUNS_KEPT);
	mkdirSync(DOCS_DIR, { recursive: true });
	writeFileSync(HISTORY_FILE, `${JSON.stringify(history, null, '\t')}\n`);

	const { machine } = results;
	const lines = [
		'# Benchmark results',
		'',
		'<!-- Written by `npm run bench` (a full run of every group): do not edit by hand. -->',
		'',
		`Last full run: ${results.startedAt}, ${results.seconds} s, on ${machine.cpus} CPUs (${machine.model}), ${machine.memoryGb} GB,`,
		`${machine.platform}, Node.js ${machine.node}; load average ${machine.loadAverageBefore.join(' ')} before, ${machine.loadAverageAfter.join(' ')} after.`,
		`"Range" is the ratio over the last ${history.length} full run(s) (${history.map((run) => run.startedAt.slice(0, 16)).join(', ')}).`,
		'What each row measures: [performance.md](../performance.md).',
		'',
		'| id | Row | Measured | Baseline | Ratio | Range | Goal | Result |',
		'|---|---|---|---|---|---|---|---|',
		...results.rows.map(
			(r) =>
				`| \`${r.id}\` | ${cell(r.row)} | ${cell(r.measured)} | ${cell(r.baseline)} | ${r.ratio ?? '-'} | ${range(r.id, history)} | ${cell(r.goal)} | ${verdict(r.pass)} |`,
		),
		'',
	];
	writeFileSync(join(DOCS_DIR, 'results.md'), lines.join('\n'));
}
