'use strict';
/**
 * Redis and PostgreSQL from Debian's packages for a queue-mode stack: each on 127.0.0.1 with a data
 * directory inside `dir` (a temporary folder), stopped cleanly by `stop()`.
 * PostgreSQL's initdb and postgres refuse to run as root, so they run as the `postgres` system user
 * (the Debian package creates it) when this process is root.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const { freePort, runCapture, sleep } = require('../process');

/** Sends one inline command to Redis and resolves with the first reply line ('' when unreachable). */
function redisCommand(port, command) {
	return new Promise((resolve) => {
		const socket = net.connect({ port, host: '127.0.0.1' });
		let reply = '';
		socket.setTimeout(2000, () => socket.destroy());
		socket.on('connect', () => socket.write(`${command}\r\n`));
		socket.on('data', (chunk) => {
			reply += chunk.toString('utf8');
			if (reply.includes('\r\n')) socket.end();
		});
		socket.on('close', () => resolve(reply.split('\r\n')[0]));
		socket.on('error', () => resolve(''));
	});
}

/** redis-server on loopback, no persistence (`--save "" --appendonly no`), its dir inside `dir`. */
async function startRedis(dir) {
	const port = await freePort();
	const dataDir = path.join(dir, 'redis');
	fs.mkdirSync(dataDir, { recursive: true });
	const log = fs.openSync(path.join(dir, 'redis.log'), 'a');
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dataDir,
		],
		{ stdio: ['ignore', log, log] },
	);
	fs.closeSync(log);
	const exited = new Promise((resolve) => child.on('exit', resolve));
	for (let i = 0; i < 100; i += 1) {
		if ((await redisCommand(port, 'PING')) === '+PONG') {
			return {
				host: '127.0.0.1',
				port,
				stop: async () => {
					if (child.exitCode !== null) return;
					child.kill('SIGTERM');
					await exited;
				},
			};
		}
		await sleep(100);
	}
	child.kill('SIGKILL');
	throw new Error(
		`redis-server did not answer PING on 127.0.0.1:${port}; see ${path.join(dir, 'redis.log')}`,
	);
}

/** The folder of Debian's PostgreSQL binaries (the newest installed major version). */
function postgresBinDir() {
	const base = '/usr/lib/postgresql';
	const versions = fs.existsSync(base)
		? fs
				.readdirSync(base)
				.filter((v) => /^\d+$/.test(v))
				.sort((a, b) => b - a)
		: [];
	for (const version of versions) {
		const bin = path.join(base, version, 'bin');
		if (fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
	}
	throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)');
}

/** Runs a PostgreSQL tool, as the postgres user when this process is root. */
async function asPostgres(tool, args, { timeoutMs = 120000 } = {}) {
	const file = path.join(postgresBinDir(), tool);
	const [command, commandArgs] = runsAsRoot()
		? ['runuser', ['-u', 'postgres', '--', file, ...args]]
		: [file, args];
	// cwd '/': the postgres user may not be allowed into this process's temporary folder.
	const result = await runCapture(command, commandArgs, { cwd: '/', timeoutMs });
	if (result.code !== 0)
		throw new Error(
			`${tool} ${args.join(' ')} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
		);
	return result;
}

/**
 * A PostgreSQL cluster in `dir`/postgres (initdb, trust on loopback only), its socket in the same
 * folder, listening on 127.0.0.1 only, with the database `database` created.
 */
async function startPostgres(dir, { database = 'n8n' } = {}) {
	const isRoot = runsAsRoot();
	// As root the cluster belongs to the postgres user, who must be able to reach it: a private
	// temporary folder (TMPDIR inside a 0700 folder) would refuse it, so the cluster goes to /tmp then.
	const outside = isRoot && !othersCanPass(dir);
	const root = outside
		? fs.mkdtempSync(path.join('/tmp', 'site-postgres-'))
		: path.join(dir, 'postgres');
	const dataDir = path.join(root, 'data');
	fs.mkdirSync(root, { recursive: true });
	if (isRoot) {
		const { uid, gid } = userIds('postgres');
		if (!outside) fs.chmodSync(dir, 0o755);
		fs.chownSync(root, uid, gid);
	}
	const port = await freePort();
	await asPostgres('initdb', [
		'-D',
		dataDir,
		'-U',
		'postgres',
		'--auth=trust',
		'--encoding=UTF8',
		'--no-instructions',
	]);
	const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${root} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
	await asPostgres('pg_ctl', [
		'-D',
		dataDir,
		'-l',
		path.join(root, 'postgres.log'),
		'-o',
		options,
		'-w',
		'-t',
		'60',
		'start',
	]);
	await asPostgres('psql', [
		'-h',
		'127.0.0.1',
		'-p',
		String(port),
		'-U',
		'postgres',
		'-d',
		'postgres',
		'-qc',
		`CREATE DATABASE ${database}`,
	]);
	let stopped = false;
	return {
		host: '127.0.0.1',
		port,
		user: 'postgres',
		password: '',
		database,
		stop: async () => {
			if (stopped) return;
			stopped = true;
			await asPostgres('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
			if (outside) fs.rmSync(root, { recursive: true, force: true });
		},
	};
}

/** Whether other users may pass through every folder above `dir` (the execute bit for others). */
function othersCanPass(dir) {
	for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
		if ((fs.statSync(current).mode & 0o001) === 0) return false;
		if (current === path.dirname(current)) return true;
	}
}

/** PostgreSQL refuses root: as root its tools run as the postgres user. */
function runsAsRoot() {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** uid and gid of a system user, from /etc/passwd. */
function userIds(name) {
	const line = fs
		.readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith(`${name}:`));
	if (!line) throw new Error(`no system user "${name}" (the postgresql package creates it)`);
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

module.exports = { startRedis, startPostgres };
