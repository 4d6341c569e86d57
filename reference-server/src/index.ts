export { startServer } from './server';
export { buildApp } from './app';
export { resolveConfig, parseCommandLine, ConfigError } from './config';
export { DEFAULT_OPTIONS } from './defaults';
export type { ServerOptions, ServerConfig, RunningServer } from './types';
