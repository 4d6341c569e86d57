import type { FastifyInstance } from 'fastify';

/** What a caller may set; every field has a default (see config.ts). Twins of the CLI flags. */
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
	/** Base of asset URLs; defaults to the URL the server listens on. */
	publicUrl?: string;
	maxBodyMb: number;
	maxUploadMb: number;
	/** MB all of one tenant's uploads may take; 0: no quota. */
	uploadQuotaMb: number;
	/** Variables one tenant may have. */
	maxVariables: number;
	/** Live test webhooks one tenant may have (413 quota_exceeded past it). */
	maxTestWebhooks: number;
	/** Test copies in flight at once, server-wide; more are not sent (a copy is best effort). */
	maxTestCopiesInFlight: number;
	/** KB of one tenant's variable keys and values together. */
	maxVariablesKb: number;
	/** Days contact-form submissions (and their finished deliveries) are kept; 0: forever. */
	retentionDays: number;
	/**
	 * Reverse proxies trusted to name the client in X-Forwarded-For (CIDRs, addresses, `loopback`,
	 * `private`); unset: the peer address is the client.
	 */
	trustProxy?: string;
	/** Body limit of POST /forms/:tenantId/contact, in KB. */
	formMaxBodyKb: number;
	/** Fields one submission may have. */
	formMaxFields: number;
	/** Characters of one text field of a submission. */
	formMaxFieldLength: number;
	/** Submissions per minute from one client address; 0: no limit. */
	formRatePerAddress: number;
	/** Submissions per minute to one tenant; 0: no limit. */
	formRatePerTenant: number;
	deliveryRetryBaseMs: number;
	deliveryMaxAttempts: number;
	deliveryTimeoutMs: number;
	/** Webhooks may reach only these addresses (CIDRs, addresses, `loopback`, `private`; comma-separated). */
	webhookAllow?: string;
	/** Webhooks may not reach these addresses (link-local, metadata and the server itself always refused). */
	webhookDeny?: string;
	/** Share of /api requests answered 503 before doing anything (reliability tests). */
	faultRate: number;
	/** Share of /api requests that do their work, commit, then drop the connection unanswered. */
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
	/** A request's headers must arrive within this (slow-header clients are cut off with 408). */
	headersTimeoutMs: number;
	/** A whole request (headers and body) must arrive within this (slow-body clients are cut off with 408). */
	requestTimeoutMs: number;
	/** A connection with no traffic either way for this long is closed. */
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
