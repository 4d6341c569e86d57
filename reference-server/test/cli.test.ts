/**
 * The command line: `site-reference-server` prints its URL and (when ADMIN_TOKEN is not set) a
 * generated admin token exactly once, serves the API, reads the env twins of its flags, and shuts
 * down cleanly on SIGTERM.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { client, rememberSecret, randomToken, waitFor } from './helpers';

const PACKAGE_DIR = path.resolve(__dirname, '..');
const BIN = path.join(PACKAGE_DIR, 'bin', 'site-reference-server.js');
const CLI_JS = path.join(PACKAGE_DIR, 'dist', 'cli.js');
const TSC = path.resolve(PACKAGE_DIR, '..', 'node_modules', 'typescript', 'bin', 'tsc');

function newestMtime(dir: string): number {
	let newest = 0;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
	}
	return newest;
}

/** Builds dist/ from src/ when it is missing or older than the sources. */
function ensureBuilt(): void {
	const srcNewest = newestMtime(path.join(PACKAGE_DIR, 'src'));
	if (fs.existsSync(CLI_JS) && fs.statSync(CLI_JS).mtimeMs >= srcNewest) return;
	try {
		execFileSync(process.execPath, [TSC, '-p', path.join(PACKAGE_DIR, 'tsconfig.json')], {
			cwd: PACKAGE_DIR,
			stdio: 'pipe',
			timeout: 90_000,
		});
	} catch (error: any) {
		throw new Error(
			`building reference-server failed:\n${String(error.stdout ?? '')}${String(error.stderr ?? '')}`,
		);
	}
}

interface Spawned {
	child: ChildProcess;
	output: () => string;
	exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];

function spawnCli(args: string[], env: Record<string, string | undefined>): Spawned {
	const fullEnv: NodeJS.ProcessEnv = { ...process.env };
	for (const key of Object.keys(fullEnv)) {
		if (key === 'ADMIN_TOKEN' || key.startsWith('SITE_SERVER_')) delete fullEnv[key];
	}
	for (const [key, value] of Object.entries(env)) {
		if (value === undefined) delete fullEnv[key];
		else fullEnv[key] = value;
	}
	const child = spawn(process.execPath, [BIN, ...args], {
		cwd: PACKAGE_DIR,
		env: fullEnv,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	children.push(child);
	let out = '';
	child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
	child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
	const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
		child.on('exit', (code, signal) => resolve({ code, signal })),
	);
	return { child, output: () => out, exit };
}

async function listeningUrl(s: Spawned): Promise<string> {
	const match = await waitFor(
		() => /Site reference server listening on (http:\/\/[^\s]+)/.exec(s.output()),
		20000,
		'listening line',
	).catch((error) => {
		throw new Error(`${String(error)}\noutput so far:\n${s.output()}`);
	});
	return match[1].replace(/\/+$/, '');
}

function occurrences(haystack: string, needle: string): number {
	let count = 0;
	for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) count++;
	return count;
}

beforeAll(() => {
	ensureBuilt();
}, 120_000);

afterAll(() => {
	for (const child of children)
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('site-reference-server (CLI)', () => {
	it('--memory --port 0 without ADMIN_TOKEN: prints the URL and a generated admin token once, serves, exits 0 on SIGTERM', async () => {
		const s = spawnCli(['--memory', '--port', '0'], { ADMIN_TOKEN: undefined });
		const url = await listeningUrl(s);
		expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(url).not.toMatch(/:0$/);

		// the generated token is somewhere in the start-up output: find the candidate that works
		const candidates = [...new Set(s.output().match(/[A-Za-z0-9_\-.~+/=]{32,}/g) ?? [])];
		let adminToken: string | undefined;
		for (const candidate of candidates) {
			const res = await client(url, candidate).post('/api/tenant', { id: 'cli-probe' });
			if (res.status === 200) {
				adminToken = candidate;
				break;
			}
		}
		expect({ found: adminToken !== undefined, output: s.output() }).toEqual({
			found: true,
			output: s.output(),
		});
		rememberSecret(adminToken!);
		const startupOutput = s.output();

		// some traffic: both token kinds, a failing auth, a 404
		const admin = client(url, adminToken);
		const token = (await admin.post('/api/tenant/token', { id: 'cli-probe' })).data.token;
		expect(typeof token).toBe('string');
		const tenant = client(url, token);
		expect(
			(await tenant.post('/api/page', { name: 'CLI', url: '/cli', locale: 'en' })).status,
		).toBe(201);
		expect((await tenant.get('/api/pages')).data.meta.total).toBe(1);
		expect((await client(url, 'wrong').get('/api/pages')).status).toBe(401);
		expect((await admin.get('/api/pages')).status).toBe(403);
		expect((await client(url).get('/health')).status).toBe(200);

		s.child.kill('SIGTERM');
		const exit = await s.exit;
		expect(exit).toEqual({ code: 0, signal: null });

		const output = s.output();
		expect(occurrences(output, adminToken!)).toBe(1);
		// the one occurrence is in the start-up output; nothing logged afterwards repeats it
		expect(occurrences(startupOutput, adminToken!)).toBe(1);
		expect(output.startsWith(startupOutput)).toBe(true);
		expect(output.slice(startupOutput.length)).not.toContain(adminToken!);
		expect(occurrences(output, token)).toBe(0);
		expect(output.toLowerCase()).not.toContain(`bearer ${token.toLowerCase()}`);
	});

	it('with ADMIN_TOKEN set, never prints it; env twins set port, memory and variables', async () => {
		const adminToken = randomToken('cli-admin');
		const s = spawnCli([], {
			ADMIN_TOKEN: adminToken,
			SITE_SERVER_PORT: '0',
			SITE_SERVER_MEMORY: 'true',
			SITE_SERVER_ENABLE_VARIABLES: 'true',
		});
		const url = await listeningUrl(s);
		const admin = client(url, adminToken);
		expect((await admin.post('/api/tenant', { id: 'env-twins' })).status).toBe(200);
		const token = (await admin.post('/api/tenant/token', { id: 'env-twins' })).data.token;
		const res = await client(url, token).put('/api/variables', { key: 'A', value: 'b' });
		expect(res.status).toBe(200);

		s.child.kill('SIGTERM');
		expect(await s.exit).toEqual({ code: 0, signal: null });
		expect(occurrences(s.output(), adminToken)).toBe(0);
		expect(occurrences(s.output(), token)).toBe(0);
	});

	it('flags win over their environment twins', async () => {
		const adminToken = randomToken('cli-admin');
		const s = spawnCli(['--memory', '--port', '0', '--enable-variables'], {
			ADMIN_TOKEN: adminToken,
			SITE_SERVER_PORT: '1',
		});
		const url = await listeningUrl(s);
		expect(url).not.toMatch(/:1$/);
		const admin = client(url, adminToken);
		expect((await admin.post('/api/tenant', { id: 'flags' })).status).toBe(200);
		s.child.kill('SIGTERM');
		expect((await s.exit).code).toBe(0);
	});

	it('exits non-zero with a message for an invalid option', async () => {
		const s = spawnCli(['--memory', '--port', 'not-a-port'], {
			ADMIN_TOKEN: randomToken('cli-admin'),
		});
		const exit = await s.exit;
		expect(exit.code).not.toBe(0);
		expect(s.output()).toMatch(/port/i);
		expect(s.output()).not.toMatch(/listening on/);
	});
});
