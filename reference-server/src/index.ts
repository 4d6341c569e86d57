export { startServer } from './server';
export { buildApp } from './app';
export { resolveConfig, parseCommandLine, ConfigError, DEFAULT_OPTIONS } from './config';
export { ApiError } from './errors/api-error';
export { backoffDelayMs, retryAfterMs, verdictFor } from './delivery/backoff';
export type { ServerOptions, ServerConfig, RunningServer } from './types';
