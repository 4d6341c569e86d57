import { ConfigError, parseCommandLine, resolveConfig, usage } from './config';
import { startServer } from './server';

async function main(): Promise<void> {
	let parsed: ReturnType<typeof parseCommandLine>;
	try {
		parsed = parseCommandLine(process.argv.slice(2), process.env);
		if (!parsed.help) resolveConfig(parsed.options);
	} catch (error) {
		if (error instanceof ConfigError) {
			process.stderr.write(`${error.message}\n`);
			process.exit(2);
		}
		throw error;
	}
	if (parsed.help) {
		process.stdout.write(`${usage()}\n`);
		return;
	}

	const server = await startServer(parsed.options);
	// One write, so a reader that sees the URL also sees the token (a pipe delivers it whole).
	const tokenLine = server.config.adminTokenGenerated
		? `Admin token (shown once): ${server.adminToken}\n`
		: '';
	process.stdout.write(`Site reference server listening on ${server.url}\n${tokenLine}`);

	let stopping = false;
	const shutdown = (signal: string) => {
		if (stopping) {
			// A second Ctrl-C while waiting for in-flight work: stop waiting.
			process.stderr.write('Forced exit.\n');
			process.exit(1);
		}
		stopping = true;
		server.app.log.info({ signal }, 'shutting down');
		// close(): stop accepting, let in-flight requests finish, stop the delivery worker, close the database.
		server.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`Shutdown failed: ${(error as Error).message}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGTERM', () => shutdown('SIGTERM'));
	process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
	process.stderr.write(`Could not start the server: ${(error as Error).message}\n`);
	process.exit(1);
});
