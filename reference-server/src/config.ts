import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CidrListError, parseCidrList } from './delivery/target-policy';
import { withoutTrailingSlashes } from './lib/slashes';
import { DEFAULT_OPTIONS } from './defaults';
import type { ServerConfig, ServerOptions } from './types';

/** A bad option value; the CLI prints the message and exits with status 2. */
export class ConfigError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ConfigError';
	}
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const isInteger = Number.isInteger;

/** The kinds of number an option takes: the test a value passes, and what it must be in words. */
const NUMBER_KINDS = {
	port: [(n) => isInteger(n) && n >= 0 && n <= 65535, 'an integer 0..65535'],
	positive: [(n) => n > 0, 'a positive number'],
	nonNegative: [(n) => n >= 0, '0 or more'],
	positiveInt: [(n) => isInteger(n) && n >= 1, 'an integer >= 1'],
	nonNegativeInt: [(n) => isInteger(n) && n >= 0, 'an integer >= 0'],
	rate: [(n) => n >= 0 && n <= 1, 'between 0 and 1'],
} satisfies Record<string, [(n: number) => boolean, string]>;

type Kind = 'string' | 'url' | 'cidrList' | 'boolean' | 'logLevel' | keyof typeof NUMBER_KINDS;

/**
 * One row per option: flag, kind, help. The field it fills is the flag in camelCase (`no-extensions`
 * sets `extensions` to false; `log-level` sets `logger`); its environment twin is SITE_SERVER_ and
 * the flag in capitals. The same kind checks a flag, its twin and a value given to startServer().
 */
const OPTION_TABLE = `
host                       string          interface to listen on (default 127.0.0.1)
port                       port            port, 0 for an ephemeral one (default 4010)
data-dir                   string          directory for site.db and assets/ (default .data/reference-server)
memory                     boolean         keep nothing on disk (in-memory SQLite, uploads in a temporary directory)
enable-variables           boolean         enable the variables endpoints (otherwise 403 feature_disabled)
no-extensions              boolean         answer as the described service, without the extensions of docs/api-contract.md
public-url                 url             base of asset URLs (default the listening URL)
max-body-mb                positive        JSON body limit in MB, fractions allowed (default 10)
max-upload-mb              positive        upload limit in MB, fractions allowed (default 25)
upload-quota-mb            nonNegative     all of one tenant's uploads in MB, 0 for no quota (default 1024)
max-variables              positiveInt     variables one tenant may have (default 1000)
max-test-webhooks          positiveInt     live test webhooks one tenant may have (default 10)
max-test-copies-in-flight  positiveInt     test copies of submissions in flight, server-wide (default 50)
max-variables-kb           positive        keys and values of one tenant's variables, in KB (default 1024)
retention-days             nonNegative     days submissions and finished deliveries are kept, 0 for ever (default 30)
trust-proxy                cidrList        proxies whose X-Forwarded-For names the client: CIDRs, addresses, "loopback", "private"
form-max-body-kb           positive        body limit of the public contact form in KB (default 64)
form-max-fields            positiveInt     fields a contact-form submission may have (default 50)
form-max-field-length      positiveInt     characters of one text field of a submission (default 10000)
form-rate-per-address      nonNegativeInt  submissions a minute from one address, 0 for no limit (default 60)
form-rate-per-tenant       nonNegativeInt  submissions a minute to one tenant, 0 for no limit (default 600)
delivery-retry-base-ms     positive        base delay of the webhook retry backoff (default 1000)
delivery-max-attempts      positiveInt     webhook attempts before a delivery fails (default 10)
delivery-timeout-ms        positive        timeout of one webhook POST (default 10000)
delivery-setup-grace-ms    nonNegative     after a webhook settings change, a 401 or 404 is retried this long (default 30000, 0: off)
webhook-allow              cidrList        webhooks may also reach these addresses: "loopback", "private", CIDRs, addresses
webhook-deny               cidrList        webhooks may not reach these addresses either (same forms)
fault-rate                 rate            share 0..1 of /api requests answered 503 before doing anything (default 0)
fault-drop-rate            rate            share 0..1 of /api requests that commit, then drop the connection (default 0)
headers-timeout-ms         positive        time a request's headers may take to arrive (default 20000)
request-timeout-ms         positive        time a whole request may take to arrive (default 120000)
idle-timeout-ms            positive        an idle connection is closed after this (default 72000)
log-level                  logLevel        log level: ${LOG_LEVELS.join(', ')} (default info)
`;

interface OptionSpec {
	flag: string;
	kind: Kind;
	field: keyof ServerOptions;
	env: string;
	help: string;
}

const OPTION_SPECS: OptionSpec[] = OPTION_TABLE.trim()
	.split('\n')
	.map((row) => {
		const [, flag, kind, help] = /^(\S+)\s+(\S+)\s+(\S.*)$/.exec(row)!;
		const camel = flag.replace(/^no-/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
		const field = (flag === 'log-level' ? 'logger' : camel) as keyof ServerOptions;
		const env = `SITE_SERVER_${flag.toUpperCase().replaceAll('-', '_')}`;
		return { flag, kind: kind as Kind, field, env, help };
	});

export function usage(): string {
	const lines = OPTION_SPECS.map(({ flag, kind, env, help }) => {
		const arg = kind === 'boolean' ? '' : ' <value>';
		return `  --${(flag + arg).padEnd(30)} ${help}\n  ${''.padEnd(32)} env ${env}`;
	});
	return [
		'Usage: site-reference-server [options]',
		'',
		'Reference implementation of the Site Management API.',
		'',
		'Options (each flag wins over its environment variable):',
		...lines,
		`  --${'help'.padEnd(30)} print this text`,
		'',
		'ADMIN_TOKEN sets the admin token; without it one is generated and printed once.',
	].join('\n');
}

/** What is wrong with a value of this kind (" must be ...", or ": ..." for a list), or undefined. */
function problemOf(kind: Kind, value: unknown): string | undefined {
	switch (kind) {
		case 'boolean':
			return typeof value === 'boolean'
				? undefined
				: ` must be true or false, got ${String(value)}`;
		case 'string':
			return typeof value === 'string' && value.trim() !== '' ? undefined : ' must not be empty';
		case 'url':
			try {
				if (['http:', 'https:'].includes(new URL(String(value)).protocol)) return undefined;
			} catch {
				// Reported below.
			}
			return ` must be an http(s) URL, got "${String(value)}"`;
		case 'cidrList':
			try {
				parseCidrList(String(value));
				return undefined;
			} catch (error) {
				if (error instanceof CidrListError) return `: ${error.message}`;
				throw error;
			}
		case 'logLevel':
			return typeof value === 'boolean' || LOG_LEVELS.includes(String(value))
				? undefined
				: ` must be one of ${LOG_LEVELS.join(', ')}, got "${String(value)}"`;
		default: {
			const [passes, words] = NUMBER_KINDS[kind];
			return typeof value === 'number' && passes(value)
				? undefined
				: ` must be ${words}, got ${String(value)}`;
		}
	}
}

/** A flag's or variable's text as the value of its kind; `source` names it in the error. */
function parseValue(kind: Kind, raw: string | boolean, source: string): unknown {
	let value: unknown = typeof raw === 'string' ? raw.trim() : raw;
	if (kind === 'boolean' && typeof raw === 'string') {
		const text = raw.trim().toLowerCase();
		if (['1', 'true', 'yes', 'on'].includes(text)) value = true;
		else if (['0', 'false', 'no', 'off', ''].includes(text)) value = false;
		else throw new ConfigError(`Invalid ${source}: expected true or false, got "${raw}".`);
	} else if (kind in NUMBER_KINDS) {
		if (value === '' || !Number.isFinite(Number(value)))
			throw new ConfigError(`Invalid ${source}: expected a number, got "${String(value)}".`);
		value = Number(value);
	}
	const problem = problemOf(kind, value);
	if (problem) throw new ConfigError(`Invalid ${source}:${problem.replace(/^:/, '')}.`);
	return value;
}

/** Parses argv (without node and script) and the environment. Flags win over environment variables. */
export function parseCommandLine(
	argv: string[],
	env: NodeJS.ProcessEnv,
): { help: true } | { help: false; options: Partial<ServerOptions> } {
	const parseOptions: Record<string, { type: 'string' | 'boolean' }> = {
		help: { type: 'boolean' },
	};
	for (const { flag, kind } of OPTION_SPECS)
		parseOptions[flag] = { type: kind === 'boolean' ? 'boolean' : 'string' };
	let values: Record<string, string | boolean | undefined>;
	try {
		values = parseArgs({ args: argv, options: parseOptions, strict: true, allowPositionals: false })
			.values as typeof values;
	} catch (error) {
		throw new ConfigError(`${(error as Error).message} (see --help)`);
	}
	if (values.help) return { help: true };

	const options: Record<string, unknown> = { logger: 'info' };
	for (const { flag, kind, field, env: twin } of OPTION_SPECS) {
		const fromFlag = values[flag];
		const fromEnv = env[twin];
		let value: unknown;
		if (fromFlag !== undefined) value = parseValue(kind, fromFlag, `--${flag}`);
		else if (fromEnv !== undefined && fromEnv !== '') value = parseValue(kind, fromEnv, twin);
		else continue;
		options[field] = flag.startsWith('no-') ? !value : value;
	}
	if (env.ADMIN_TOKEN !== undefined && env.ADMIN_TOKEN !== '') options.adminToken = env.ADMIN_TOKEN;
	return { help: false, options: options as Partial<ServerOptions> };
}

/** Applies defaults and checks every value; the same rules for the CLI and for startServer(). */
export function resolveConfig(options: Partial<ServerOptions> = {}): ServerConfig {
	const merged: ServerOptions = { ...DEFAULT_OPTIONS, ...withoutUndefined(options) };
	const problems: string[] = [];
	for (const { kind, field } of OPTION_SPECS) {
		// Optional fields (publicUrl, trustProxy, the webhook lists) may be left out.
		if (merged[field] === undefined) continue;
		const problem = problemOf(kind, merged[field]);
		if (problem) problems.push(`${field}${problem}`);
	}
	if (merged.headersTimeoutMs > merged.requestTimeoutMs) {
		problems.push(
			`headersTimeoutMs (${merged.headersTimeoutMs}) must not exceed requestTimeoutMs (${merged.requestTimeoutMs})`,
		);
	}
	if (merged.adminToken !== undefined && merged.adminToken.trim() === '')
		problems.push('the admin token must not be empty');
	if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}.`);

	const adminTokenGenerated = merged.adminToken === undefined;
	return {
		...merged,
		publicUrl:
			merged.publicUrl === undefined ? undefined : withoutTrailingSlashes(merged.publicUrl),
		dataDir: path.resolve(merged.dataDir),
		adminToken: merged.adminToken ?? `sat_${randomBytes(32).toString('base64url')}`,
		adminTokenGenerated,
	};
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
