export { startServer } from './server';
export { buildApp } from './app';
export { resolveConfig, parseCommandLine, ConfigError, DEFAULT_OPTIONS } from './config';
export type { ServerOptions, ServerConfig, RunningServer } from './types';
