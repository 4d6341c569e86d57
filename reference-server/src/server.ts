import type { AddressInfo } from 'node:net';
import { buildApp } from './app';
import { resolveConfig } from './config';
import type { RunningServer, ServerOptions } from './types';

/** A URL a client on this machine can use, also when listening on all interfaces. */
function reachableUrl(host: string, port: number): string {
	const local = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
	return `http://${local.includes(':') ? `[${local}]` : local}:${port}`;
}

/** Builds the app, listens, and returns once listening. */
export async function startServer(options: Partial<ServerOptions> = {}): Promise<RunningServer> {
	const config = resolveConfig(options);
	const app = buildApp(config);
	try {
		await app.listen({ host: config.host, port: config.port });
	} catch (error) {
		await app.close();
		throw error;
	}
	const port = (app.server.address() as AddressInfo).port;
	const url = reachableUrl(config.host, port);
	app.site.publicUrl = config.publicUrl ?? url;
	app.site.listenPort = port;
	const resolved = { ...config, port, publicUrl: app.site.publicUrl };

	let closing: Promise<void> | undefined;
	return {
		url,
		port,
		adminToken: config.adminToken,
		config: resolved,
		app,
		close: () => (closing ??= app.close()),
	};
}
