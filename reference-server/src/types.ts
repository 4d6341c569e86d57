import type { FastifyInstance } from 'fastify';

/**
 * What a caller may set; every field has a default. Twins of the CLI flags: what each means is the
 * flag's help in config.ts (OPTION_TABLE) and the table in README.md.
 */
export interface ServerOptions {
	host: string;
	/** 0 asks the OS for an ephemeral port. */
	port: number;
	dataDir: string;
	/** SQLite `:memory:` and uploads in a temporary directory removed on close: nothing under dataDir. */
	memory: boolean;
	enableVariables: boolean;
	/**
	 * false: the server answers as a deployment of the described service would, without the
	 * extensions of docs/api-contract.md (plugins/extensions.ts says what goes and what stays).
	 */
	extensions: boolean;
	publicUrl?: string;
	maxBodyMb: number;
	maxUploadMb: number;
	uploadQuotaMb: number;
	maxVariables: number;
	maxTestWebhooks: number;
	maxTestCopiesInFlight: number;
	maxVariablesKb: number;
	retentionDays: number;
	trustProxy?: string;
	formMaxBodyKb: number;
	formMaxFields: number;
	formMaxFieldLength: number;
	formRatePerAddress: number;
	formRatePerTenant: number;
	deliveryRetryBaseMs: number;
	deliveryMaxAttempts: number;
	deliveryTimeoutMs: number;
	/**
	 * For this long after the webhook settings change, a 401 or 404 from the receiver is retried
	 * instead of ending the delivery: a receiver that registers itself (n8n's trigger) may be told the
	 * secret a moment before it knows it. 0 turns it off.
	 */
	deliverySetupGraceMs: number;
	webhookAllow?: string;
	webhookDeny?: string;
	faultRate: number;
	faultDropRate: number;
	/** Defaults to a generated token. */
	adminToken?: string;
	/** false, true (info) or a pino level. */
	logger: boolean | string;
	/**
	 * Where log lines go (one JSON object per line) instead of stdout; only used when `logger` is on.
	 * Tests capture the log with it.
	 */
	logStream?: { write(line: string): unknown };
	headersTimeoutMs: number;
	requestTimeoutMs: number;
	idleTimeoutMs: number;
}

/** Options with defaults applied and validated. */
export interface ServerConfig extends ServerOptions {
	adminToken: string;
	/** True when the admin token was generated here (the CLI prints it once). */
	adminTokenGenerated: boolean;
	/** Absolute path of the data directory (unused with `memory`). */
	dataDir: string;
}

export interface RunningServer {
	/** http://127.0.0.1:PORT, no trailing slash. */
	url: string;
	port: number;
	adminToken: string;
	config: ServerConfig;
	app: FastifyInstance;
	/** Idempotent: stops accepting, lets in-flight requests finish, stops the delivery worker, closes the DB. */
	close(): Promise<void>;
}
