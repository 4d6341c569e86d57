/**
 * `npm start` as a new user meets it, the n8n runtime installed and the package built: from the
 * command to the banner (n8n answering, the examples imported, the contact-form workflow published
 * and registered with the site), on a fresh data folder and again on a second start of the same
 * folder. The parts come from the script's own progress lines, timed here as they arrive.
 *
 * npm start's fixed ports (5678, 4010, 4011) may be taken on a shared machine: each start gets free
 * ones through N8N_PORT, N8N_RUNNERS_BROKER_PORT, SITE_SERVER_PORT, SITE_AI_PORT and SITE_MAIL_PORT.
 */
import { spawn } from 'child_process';
import { join } from 'path';

import { log, rows, tempDir } from '../lib/context';
import { ensureRuntime, freePort } from '../lib/real-n8n';
import { round } from '../lib/stats';

const ROOT = join(__dirname, '..', '..', '..', '..');
const FRESH_GOAL_S = 30;
const SECOND_GOAL_S = 15;
const BANNER = 'Site Management stack is running';

/** The part of the start a progress line (`[start +Ns] …`) begins. */
const PARTS: Array<[RegExp, string]> = [
	[/^(the package is built|building the package)/, 'build'],
	[/^starting the reference server|^demo tenant/, 'site'],
	[/^importing the credentials/, 'credentials'],
	[/^starting n8n/, 'n8n'],
	[/^(creating the example|publishing the contact-form)/, 'examples'],
];

interface Start {
	seconds: number;
	/** Seconds per part, in the order they ran; `node` is the time before the script's first line. */
	parts: Record<string, number>;
}

interface Ports {
	n8n: number;
	broker: number;
	server: number;
	ai: number;
	mail: number;
}

/**
 * One `node scripts/start.js` on `dataDir` until its banner, then Ctrl-C and its exit. The same
 * ports for both starts of a folder, as a user has them (a new AI port would import the credentials
 * again: the OpenAI credential holds its URL).
 */
async function startOnce(dataDir: string, ports: Ports): Promise<Start> {
	const started = performance.now();
	const child = spawn(process.execPath, [join(ROOT, 'scripts', 'start.js')], {
		cwd: ROOT,
		env: {
			...process.env,
			N8N_PORT: String(ports.n8n),
			N8N_RUNNERS_BROKER_PORT: String(ports.broker),
			SITE_SERVER_PORT: String(ports.server),
			SITE_AI_PORT: String(ports.ai),
			SITE_MAIL_PORT: String(ports.mail),
			SITE_START_DATA: dataDir,
		},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const marks: Array<{ at: number; part: string }> = [];
	let output = '';
	const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
	const seconds = await new Promise<number>((resolve, reject) => {
		let buffered = '';
		child.stdout.on('data', (chunk: Buffer) => {
			const at = performance.now();
			buffered += chunk.toString('utf8');
			output = (output + chunk.toString('utf8')).slice(-4000);
			const lines = buffered.split('\n');
			buffered = lines.pop() ?? '';
			for (const line of lines) {
				const message = /^\[start \+\d+s\] (.*)$/.exec(line)?.[1];
				const part = message && PARTS.find(([pattern]) => pattern.test(message))?.[1];
				if (part) marks.push({ at, part });
				if (line.startsWith(BANNER)) resolve((at - started) / 1000);
			}
		});
		child.stderr.on('data', (chunk: Buffer) => {
			output = (output + chunk.toString('utf8')).slice(-4000);
		});
		void exited.then((code) =>
			reject(new Error(`npm start exited (${code}) before its banner:\n${output}`)),
		);
	});
	const end = started + seconds * 1000;
	const parts: Record<string, number> = { node: ((marks[0]?.at ?? end) - started) / 1000 };
	marks.forEach((mark, index) => {
		const until = marks[index + 1]?.at ?? end;
		parts[mark.part] = round((parts[mark.part] ?? 0) + (until - mark.at) / 1000, 1);
	});
	parts.node = round(parts.node, 1);
	child.kill('SIGINT');
	await exited;
	return { seconds: round(seconds, 1), parts };
}

const describe = (start: Start) =>
	`${start.seconds} s (${Object.entries(start.parts)
		.map(([part, s]) => `${part} ${s}`)
		.join(', ')})`;

export async function startReadyRow() {
	await ensureRuntime();
	const dataDir = tempDir('bench-start-ready-');
	const ports = {
		n8n: await freePort(),
		broker: await freePort(),
		server: await freePort(),
		ai: await freePort(),
		mail: await freePort(),
	};
	log('start-ready: npm start on a fresh data folder');
	const fresh = await startOnce(dataDir, ports);
	log(`start-ready: fresh ${describe(fresh)}; again on the same folder`);
	const second = await startOnce(dataDir, ports);
	log(`start-ready: second ${describe(second)}`);
	rows.push({
		id: 'start-ready',
		row: 'npm start, runtime installed and package built: command to banner (n8n up, examples imported, contact-form workflow published)',
		measured: `fresh data folder ${describe(fresh)}; second start ${describe(second)}`,
		baseline: `goals: fresh < ${FRESH_GOAL_S} s, second < ${SECOND_GOAL_S} s`,
		ratio: fresh.seconds,
		goal: `fresh < ${FRESH_GOAL_S} s, second < ${SECOND_GOAL_S} s`,
		pass: fresh.seconds < FRESH_GOAL_S && second.seconds < SECOND_GOAL_S,
		figures: {
			freshSeconds: fresh.seconds,
			secondSeconds: second.seconds,
			...Object.fromEntries(Object.entries(fresh.parts).map(([part, s]) => [`fresh.${part}`, s])),
			...Object.fromEntries(Object.entries(second.parts).map(([part, s]) => [`second.${part}`, s])),
		},
	});
}
