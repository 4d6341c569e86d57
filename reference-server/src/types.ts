import type { FastifyInstance } from 'fastify';
import type { DEFAULT_OPTIONS } from './defaults';

/**
 * What a caller may set: the twins of the CLI flags, each with its default in DEFAULT_OPTIONS and its
 * meaning in the flag's help (config.ts OPTION_TABLE, the table in README.md).
 */
export type ServerOptions = typeof DEFAULT_OPTIONS & {
	publicUrl?: string;
	trustProxy?: string;
	webhookAllow?: string;
	webhookDeny?: string;
	/** Defaults to a generated token. */
	adminToken?: string;
	/** Where log lines go (one JSON object per line) instead of stdout, when `logger` is on (tests). */
	logStream?: { write(line: string): unknown };
};

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
