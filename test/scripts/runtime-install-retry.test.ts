/**
 * The runtime install's package step (scripts/lib/install.js installPackages) against a real `npm ci`
 * and a registry stand-in on loopback that fails the first downloads: the step tries again after a
 * passing failure, gives up after its attempts with the end of the install log, and names a full
 * disk instead of retrying it.
 */
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	readdirSync,
	rmSync,
	writeFileSync,
} from 'fs';
import { createServer, type Server } from 'http';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';

interface Runtime {
	INSTALL_LOG: string;
	installPackages(
		folder: string,
		env: NodeJS.ProcessEnv,
		log: (line: string) => void,
		options?: { attempts?: number; waitMs?: number },
	): Promise<void>;
	isDiskFull(message: string, free: number): boolean;
}

const work = mkdtempSync(join(tmpdir(), 'site-runtime-retry-'));
const runtimeDir = join(work, 'runtime-copy');
let server: Server;
let tarball: Buffer;
/** How many tarball requests the stand-in fails before it serves the file. */
let failuresLeft = 0;
let requests = 0;
let runtime: Runtime;

function loadRuntime(): Runtime {
	const saved = process.env.SITE_N8N_RUNTIME_DIR;
	process.env.SITE_N8N_RUNTIME_DIR = runtimeDir;
	let loaded: Runtime | undefined;
	jest.isolateModules(() => {
		/* eslint-disable @typescript-eslint/no-require-imports */
		loaded = {
			INSTALL_LOG: require('../../scripts/lib/runtime').INSTALL_LOG,
			...require('../../scripts/lib/install'),
		} as Runtime;
		/* eslint-enable @typescript-eslint/no-require-imports */
	});
	if (saved === undefined) delete process.env.SITE_N8N_RUNTIME_DIR;
	else process.env.SITE_N8N_RUNTIME_DIR = saved;
	return loaded!;
}

/** A fresh runtime folder whose lockfile takes `tiny-dep` from the stand-in. */
function writeRuntimeFolder(port: number): void {
	rmSync(runtimeDir, { recursive: true, force: true });
	mkdirSync(runtimeDir, { recursive: true });
	const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
	writeFileSync(
		join(runtimeDir, 'package.json'),
		JSON.stringify({ name: 'runtime-copy', private: true, dependencies: { 'tiny-dep': '1.0.0' } }),
	);
	writeFileSync(
		join(runtimeDir, 'package-lock.json'),
		JSON.stringify({
			name: 'runtime-copy',
			lockfileVersion: 3,
			requires: true,
			packages: {
				'': { name: 'runtime-copy', dependencies: { 'tiny-dep': '1.0.0' } },
				'node_modules/tiny-dep': {
					version: '1.0.0',
					resolved: `http://127.0.0.1:${port}/tiny-dep-1.0.0.tgz`,
					integrity,
				},
			},
		}),
	);
}

/** npm with no retries of its own and an empty cache, so every attempt asks the stand-in. */
function npmEnv(): NodeJS.ProcessEnv {
	return {
		...process.env,
		npm_config_fetch_retries: '0',
		npm_config_cache: mkdtempSync(join(work, 'cache-')),
		npm_config_audit: 'false',
		npm_config_fund: 'false',
	};
}

beforeAll(async () => {
	const source = join(work, 'tiny-dep');
	mkdirSync(source);
	writeFileSync(
		join(source, 'package.json'),
		JSON.stringify({ name: 'tiny-dep', version: '1.0.0', main: 'index.js' }),
	);
	writeFileSync(join(source, 'index.js'), 'module.exports = 1;\n');
	execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
		cwd: source,
		stdio: 'ignore',
	});
	tarball = readFileSync(
		join(
			work,
			readdirSync(work).find((name) => name.endsWith('.tgz'))!,
		),
	);

	server = createServer((request, response) => {
		requests += 1;
		if (failuresLeft > 0) {
			failuresLeft -= 1;
			response.writeHead(503).end('try later');
			return;
		}
		response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	writeRuntimeFolder((server.address() as AddressInfo).port);
	runtime = loadRuntime();
});

afterAll(async () => {
	await new Promise((resolve) => server.close(resolve));
	rmSync(work, { recursive: true, force: true });
});

beforeEach(() => {
	rmSync(join(runtimeDir, 'node_modules'), { recursive: true, force: true });
	writeFileSync(runtime.INSTALL_LOG, '');
	requests = 0;
});

test('a download that fails once: the second attempt installs, and the first failure is in the progress output', async () => {
	failuresLeft = 1;
	const lines: string[] = [];
	await runtime.installPackages('runtime-copy', npmEnv(), (line) => lines.push(line), {
		attempts: 3,
		waitMs: 10,
	});

	expect(existsSync(join(runtimeDir, 'node_modules', 'tiny-dep', 'index.js'))).toBe(true);
	expect(requests).toBe(2);
	expect(lines.some((line) => line.includes('attempt 1 of 3 failed'))).toBe(true);
	expect(lines.join('\n')).toMatch(/503/);
}, 120000);

test('a download that keeps failing: three attempts, then the error with the end of the install log', async () => {
	failuresLeft = 100;
	const lines: string[] = [];
	const install = runtime.installPackages('runtime-copy', npmEnv(), (line) => lines.push(line), {
		attempts: 3,
		waitMs: 10,
	});

	await expect(install).rejects.toThrow(/packages failed \(exit \d+\)[\s\S]*503/);
	expect(requests).toBe(3);
	expect(lines.filter((line) => /attempt \d of 3 failed/.test(line))).toHaveLength(2);
	expect(existsSync(join(runtimeDir, 'node_modules', 'tiny-dep'))).toBe(false);
}, 120000);

test('a full disk is named as such (no retry is worth it); other failures are not', () => {
	const plenty = 50 * 1024 ** 3;
	expect(runtime.isDiskFull('npm error code ENOSPC\nnpm error syscall write', plenty)).toBe(true);
	expect(runtime.isDiskFull('npm error nospc ENOSPC: no space left on device, write', plenty)).toBe(
		true,
	);
	expect(runtime.isDiskFull('npm error code E503', 100 * 1024 ** 2)).toBe(true);
	expect(runtime.isDiskFull('npm error code E503', plenty)).toBe(false);
	expect(runtime.isDiskFull('npm error code ECONNRESET', plenty)).toBe(false);
});
