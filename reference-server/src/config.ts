import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CidrListError, parseCidrList } from './delivery/target-policy';
import type { ServerConfig, ServerOptions } from './types';

/** A bad option value; the CLI prints the message and exits with status 2. */
export class ConfigError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ConfigError';
	}
}

export const DEFAULT_OPTIONS: Omit<ServerOptions, 'publicUrl' | 'adminToken' | 'logStream'> = {
	host: '127.0.0.1',
	port: 4010,
	dataDir: '.data/reference-server',
	memory: false,
	enableVariables: false,
	extensions: true,
	maxBodyMb: 10,
	maxUploadMb: 25,
	uploadQuotaMb: 1024,
	maxVariables: 1000,
	maxTestWebhooks: 10,
	maxTestCopiesInFlight: 50,
	maxVariablesKb: 1024,
	retentionDays: 30,
	listCacheMb: 16,
	formMaxBodyKb: 64,
	formMaxFields: 50,
	formMaxFieldLength: 10_000,
	formRatePerAddress: 60,
	formRatePerTenant: 600,
	deliveryRetryBaseMs: 1000,
	deliveryMaxAttempts: 10,
	deliveryTimeoutMs: 10000,
	deliverySetupGraceMs: 30_000,
	faultRate: 0,
	faultDropRate: 0,
	logger: false,
	headersTimeoutMs: 20_000,
	requestTimeoutMs: 120_000,
	idleTimeoutMs: 72_000,
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** One row per option: flag name, environment twin, kind, and the ServerOptions field it fills. */
interface OptionSpec {
	flag: string;
	env: string;
	kind:
		| 'string'
		| 'cidrList'
		| 'boolean'
		| 'port'
		| 'positive'
		| 'nonNegative'
		| 'positiveInt'
		| 'nonNegativeInt'
		| 'rate'
		| 'url'
		| 'logLevel';
	field: keyof ServerOptions;
	/** A boolean flag that sets its field to false (`--no-extensions` turns `extensions` off). */
	negates?: true;
	help: string;
}

const OPTION_SPECS: OptionSpec[] = [
	{
		flag: 'host',
		env: 'SITE_SERVER_HOST',
		kind: 'string',
		field: 'host',
		help: 'interface to listen on (default 127.0.0.1)',
	},
	{
		flag: 'port',
		env: 'SITE_SERVER_PORT',
		kind: 'port',
		field: 'port',
		help: 'port, 0 for an ephemeral one (default 4010)',
	},
	{
		flag: 'data-dir',
		env: 'SITE_SERVER_DATA_DIR',
		kind: 'string',
		field: 'dataDir',
		help: 'directory for site.db and assets/ (default .data/reference-server)',
	},
	{
		flag: 'memory',
		env: 'SITE_SERVER_MEMORY',
		kind: 'boolean',
		field: 'memory',
		help: 'keep nothing on disk (in-memory SQLite, uploads in a temporary directory)',
	},
	{
		flag: 'enable-variables',
		env: 'SITE_SERVER_ENABLE_VARIABLES',
		kind: 'boolean',
		field: 'enableVariables',
		help: 'enable the variables endpoints (otherwise 403 feature_disabled)',
	},
	{
		flag: 'no-extensions',
		env: 'SITE_SERVER_NO_EXTENSIONS',
		kind: 'boolean',
		field: 'extensions',
		negates: true,
		help: 'answer as the described service without the extensions of docs/api-contract.md (extension routes 404, extension fields and Idempotency-Key left out, search ignored)',
	},
	{
		flag: 'public-url',
		env: 'SITE_SERVER_PUBLIC_URL',
		kind: 'url',
		field: 'publicUrl',
		help: 'base of asset URLs (default the listening URL)',
	},
	{
		flag: 'max-body-mb',
		env: 'SITE_SERVER_MAX_BODY_MB',
		kind: 'positive',
		field: 'maxBodyMb',
		help: 'JSON body limit in MB, fractions allowed (default 10)',
	},
	{
		flag: 'max-upload-mb',
		env: 'SITE_SERVER_MAX_UPLOAD_MB',
		kind: 'positive',
		field: 'maxUploadMb',
		help: 'upload limit in MB, fractions allowed (default 25)',
	},
	{
		flag: 'upload-quota-mb',
		env: 'SITE_SERVER_UPLOAD_QUOTA_MB',
		kind: 'nonNegative',
		field: 'uploadQuotaMb',
		help: "all of one tenant's uploads in MB, 0 for no quota (default 1024; 413 quota_exceeded past it)",
	},
	{
		flag: 'max-variables',
		env: 'SITE_SERVER_MAX_VARIABLES',
		kind: 'positiveInt',
		field: 'maxVariables',
		help: 'variables one tenant may have (default 1000; 413 quota_exceeded past it)',
	},
	{
		flag: 'max-test-webhooks',
		env: 'SITE_SERVER_MAX_TEST_WEBHOOKS',
		kind: 'positiveInt',
		field: 'maxTestWebhooks',
		help: 'live test webhooks one tenant may have (default 10; 413 quota_exceeded past it)',
	},
	{
		flag: 'max-test-copies-in-flight',
		env: 'SITE_SERVER_MAX_TEST_COPIES_IN_FLIGHT',
		kind: 'positiveInt',
		field: 'maxTestCopiesInFlight',
		help: 'test copies of submissions in flight at once, server-wide (default 50; more are not sent)',
	},
	{
		flag: 'max-variables-kb',
		env: 'SITE_SERVER_MAX_VARIABLES_KB',
		kind: 'positive',
		field: 'maxVariablesKb',
		help: "keys and values of one tenant's variables together, in KB (default 1024; 413 quota_exceeded past it)",
	},
	{
		flag: 'retention-days',
		env: 'SITE_SERVER_RETENTION_DAYS',
		kind: 'nonNegative',
		field: 'retentionDays',
		help: 'contact-form submissions and their finished deliveries are deleted after this many days, 0 keeps them (default 30; purged hourly)',
	},
	{
		flag: 'trust-proxy',
		env: 'SITE_SERVER_TRUST_PROXY',
		kind: 'cidrList',
		field: 'trustProxy',
		help: 'reverse proxies whose X-Forwarded-For names the client (form rate limits, logs): CIDRs, addresses, "loopback", "private" (default none)',
	},
	{
		flag: 'list-cache-mb',
		env: 'SITE_SERVER_LIST_CACHE_MB',
		kind: 'nonNegative',
		field: 'listCacheMb',
		help: 'memory for rendered page listings in MB, 0 turns the cache off (default 16)',
	},
	{
		flag: 'form-max-body-kb',
		env: 'SITE_SERVER_FORM_MAX_BODY_KB',
		kind: 'positive',
		field: 'formMaxBodyKb',
		help: 'body limit of the public contact form in KB (default 64)',
	},
	{
		flag: 'form-max-fields',
		env: 'SITE_SERVER_FORM_MAX_FIELDS',
		kind: 'positiveInt',
		field: 'formMaxFields',
		help: 'fields a contact-form submission may have (default 50)',
	},
	{
		flag: 'form-max-field-length',
		env: 'SITE_SERVER_FORM_MAX_FIELD_LENGTH',
		kind: 'positiveInt',
		field: 'formMaxFieldLength',
		help: 'characters of one text field of a submission (default 10000)',
	},
	{
		flag: 'form-rate-per-address',
		env: 'SITE_SERVER_FORM_RATE_PER_ADDRESS',
		kind: 'nonNegativeInt',
		field: 'formRatePerAddress',
		help: 'contact-form submissions per minute from one client address, 0 for no limit (default 60)',
	},
	{
		flag: 'form-rate-per-tenant',
		env: 'SITE_SERVER_FORM_RATE_PER_TENANT',
		kind: 'nonNegativeInt',
		field: 'formRatePerTenant',
		help: 'contact-form submissions per minute to one tenant, 0 for no limit (default 600)',
	},
	{
		flag: 'delivery-retry-base-ms',
		env: 'SITE_SERVER_DELIVERY_RETRY_BASE_MS',
		kind: 'positive',
		field: 'deliveryRetryBaseMs',
		help: 'base delay of the webhook retry backoff (default 1000)',
	},
	{
		flag: 'delivery-max-attempts',
		env: 'SITE_SERVER_DELIVERY_MAX_ATTEMPTS',
		kind: 'positiveInt',
		field: 'deliveryMaxAttempts',
		help: 'webhook attempts before a delivery fails (default 10)',
	},
	{
		flag: 'delivery-setup-grace-ms',
		env: 'SITE_SERVER_DELIVERY_SETUP_GRACE_MS',
		kind: 'nonNegative',
		field: 'deliverySetupGraceMs',
		help: 'after a webhook settings change, 401/403/404 answers are retried for this long (default 30000, 0: off)',
	},
	{
		flag: 'delivery-timeout-ms',
		env: 'SITE_SERVER_DELIVERY_TIMEOUT_MS',
		kind: 'positive',
		field: 'deliveryTimeoutMs',
		help: 'timeout of one webhook POST (default 10000)',
	},
	{
		flag: 'webhook-allow',
		env: 'SITE_SERVER_WEBHOOK_ALLOW',
		kind: 'cidrList',
		field: 'webhookAllow',
		help: 'webhooks may also reach these addresses, refused by default: "loopback", "private", CIDRs, addresses, comma-separated (default none: public addresses only)',
	},
	{
		flag: 'webhook-deny',
		env: 'SITE_SERVER_WEBHOOK_DENY',
		kind: 'cidrList',
		field: 'webhookDeny',
		help: 'webhooks may not reach these addresses either: CIDRs, addresses, "loopback", "private" (link-local, metadata, multicast and the server itself are always refused)',
	},
	{
		flag: 'fault-rate',
		env: 'SITE_SERVER_FAULT_RATE',
		kind: 'rate',
		field: 'faultRate',
		help: 'share 0..1 of /api requests answered 503 before doing anything (default 0)',
	},
	{
		flag: 'fault-drop-rate',
		env: 'SITE_SERVER_FAULT_DROP_RATE',
		kind: 'rate',
		field: 'faultDropRate',
		help: 'share 0..1 of /api requests that commit, then drop the connection (default 0)',
	},
	{
		flag: 'headers-timeout-ms',
		env: 'SITE_SERVER_HEADERS_TIMEOUT_MS',
		kind: 'positive',
		field: 'headersTimeoutMs',
		help: "time a request's headers may take to arrive (default 20000)",
	},
	{
		flag: 'request-timeout-ms',
		env: 'SITE_SERVER_REQUEST_TIMEOUT_MS',
		kind: 'positive',
		field: 'requestTimeoutMs',
		help: 'time a whole request (headers and body) may take to arrive (default 120000)',
	},
	{
		flag: 'idle-timeout-ms',
		env: 'SITE_SERVER_IDLE_TIMEOUT_MS',
		kind: 'positive',
		field: 'idleTimeoutMs',
		help: 'an idle connection (also a kept-alive one between requests) is closed after this (default 72000)',
	},
	{
		flag: 'log-level',
		env: 'SITE_SERVER_LOG_LEVEL',
		kind: 'logLevel',
		field: 'logger',
		help: `log level: ${LOG_LEVELS.join(', ')} (default info)`,
	},
];

export function usage(): string {
	const lines = OPTION_SPECS.map((spec) => {
		const arg = spec.kind === 'boolean' ? '' : ' <value>';
		return `  --${(spec.flag + arg).padEnd(30)} ${spec.help}\n  ${''.padEnd(32)} env ${spec.env}`;
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

function parseValue(spec: OptionSpec, raw: string | boolean, source: string): unknown {
	const fail = (why: string): never => {
		throw new ConfigError(`Invalid ${source}: ${why}.`);
	};
	if (spec.kind === 'boolean') {
		if (typeof raw === 'boolean') return raw;
		const text = raw.trim().toLowerCase();
		if (['1', 'true', 'yes', 'on'].includes(text)) return true;
		if (['0', 'false', 'no', 'off', ''].includes(text)) return false;
		return fail(`expected true or false, got "${raw}"`);
	}
	const text = String(raw).trim();
	switch (spec.kind) {
		case 'string':
			if (text === '') fail('must not be empty');
			return text;
		case 'url':
			try {
				const url = new URL(text);
				if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
			} catch {
				fail(`expected an http(s) URL, got "${text}"`);
			}
			return text;
		case 'cidrList':
			try {
				parseCidrList(text);
			} catch (error) {
				if (error instanceof CidrListError) fail(error.message);
				throw error;
			}
			return text;
		case 'logLevel':
			if (!LOG_LEVELS.includes(text))
				fail(`expected one of ${LOG_LEVELS.join(', ')}, got "${text}"`);
			return text;
		default: {
			const value = Number(text);
			if (text === '' || !Number.isFinite(value)) return fail(`expected a number, got "${text}"`);
			return value;
		}
	}
}

/** Parses argv (without node and script) and the environment. Flags win over environment variables. */
export function parseCommandLine(
	argv: string[],
	env: NodeJS.ProcessEnv,
): { help: true } | { help: false; options: Partial<ServerOptions> } {
	const parseOptions: Record<string, { type: 'string' | 'boolean' }> = {
		help: { type: 'boolean' },
	};
	for (const spec of OPTION_SPECS)
		parseOptions[spec.flag] = { type: spec.kind === 'boolean' ? 'boolean' : 'string' };
	let values: Record<string, string | boolean | undefined>;
	try {
		values = parseArgs({ args: argv, options: parseOptions, strict: true, allowPositionals: false })
			.values as typeof values;
	} catch (error) {
		throw new ConfigError(`${(error as Error).message} (see --help)`);
	}
	if (values.help) return { help: true };

	const options: Record<string, unknown> = { logger: 'info' };
	for (const spec of OPTION_SPECS) {
		const fromFlag = values[spec.flag];
		const fromEnv = env[spec.env];
		let value: unknown;
		if (fromFlag !== undefined) value = parseValue(spec, fromFlag, `--${spec.flag}`);
		else if (fromEnv !== undefined && fromEnv !== '') value = parseValue(spec, fromEnv, spec.env);
		else continue;
		options[spec.field] = spec.negates ? !value : value;
	}
	if (env.ADMIN_TOKEN !== undefined && env.ADMIN_TOKEN !== '') options.adminToken = env.ADMIN_TOKEN;
	return { help: false, options: options as Partial<ServerOptions> };
}

/** Applies defaults and checks every value; the same rules for the CLI and for startServer(). */
export function resolveConfig(options: Partial<ServerOptions> = {}): ServerConfig {
	const merged: ServerOptions = { ...DEFAULT_OPTIONS, ...withoutUndefined(options) };
	const problems: string[] = [];
	if (!Number.isInteger(merged.port) || merged.port < 0 || merged.port > 65535)
		problems.push(`port must be an integer 0..65535, got ${merged.port}`);
	for (const field of [
		'maxBodyMb',
		'maxUploadMb',
		'deliveryRetryBaseMs',
		'deliveryTimeoutMs',
		'headersTimeoutMs',
		'requestTimeoutMs',
		'idleTimeoutMs',
	] as const) {
		if (typeof merged[field] !== 'number' || !(merged[field] > 0))
			problems.push(`${field} must be a positive number, got ${merged[field]}`);
	}
	for (const field of [
		'listCacheMb',
		'uploadQuotaMb',
		'retentionDays',
		'deliverySetupGraceMs',
	] as const) {
		if (typeof merged[field] !== 'number' || !(merged[field] >= 0))
			problems.push(`${field} must be 0 or more, got ${merged[field]}`);
	}
	if (typeof merged.maxVariablesKb !== 'number' || !(merged.maxVariablesKb > 0))
		problems.push(`maxVariablesKb must be a positive number, got ${merged.maxVariablesKb}`);
	for (const field of [
		'deliveryMaxAttempts',
		'formMaxFields',
		'formMaxFieldLength',
		'maxVariables',
		'maxTestWebhooks',
		'maxTestCopiesInFlight',
	] as const) {
		if (!Number.isInteger(merged[field]) || merged[field] < 1)
			problems.push(`${field} must be an integer >= 1, got ${merged[field]}`);
	}
	if (typeof merged.formMaxBodyKb !== 'number' || !(merged.formMaxBodyKb > 0))
		problems.push(`formMaxBodyKb must be a positive number, got ${merged.formMaxBodyKb}`);
	for (const field of ['formRatePerAddress', 'formRatePerTenant'] as const) {
		if (!Number.isInteger(merged[field]) || merged[field] < 0)
			problems.push(`${field} must be an integer >= 0, got ${merged[field]}`);
	}
	for (const field of ['faultRate', 'faultDropRate'] as const) {
		if (typeof merged[field] !== 'number' || !(merged[field] >= 0 && merged[field] <= 1))
			problems.push(`${field} must be between 0 and 1, got ${merged[field]}`);
	}
	for (const field of ['memory', 'enableVariables', 'extensions'] as const) {
		if (typeof merged[field] !== 'boolean')
			problems.push(`${field} must be true or false, got ${String(merged[field])}`);
	}
	if (merged.publicUrl !== undefined) {
		try {
			const url = new URL(merged.publicUrl);
			if (url.protocol !== 'http:' && url.protocol !== 'https:')
				problems.push('publicUrl must be an http(s) URL');
		} catch {
			problems.push(`publicUrl must be an http(s) URL, got "${merged.publicUrl}"`);
		}
	}
	for (const field of ['webhookAllow', 'webhookDeny', 'trustProxy'] as const) {
		const text = merged[field];
		if (text === undefined) continue;
		try {
			parseCidrList(text);
		} catch (error) {
			if (!(error instanceof CidrListError)) throw error;
			problems.push(`${field}: ${error.message}`);
		}
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
		publicUrl: merged.publicUrl?.replace(/\/+$/, ''),
		dataDir: path.resolve(merged.dataDir),
		adminToken: merged.adminToken ?? `sat_${randomBytes(32).toString('base64url')}`,
		adminTokenGenerated,
	};
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
