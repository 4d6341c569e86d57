/**
 * The Asset Upload row's n8n process: runs `source -> Tenant node (Asset > Upload)` in n8n's engine
 * with a file the source streams into n8n's binary store on disk, so the parent can read this
 * process's resident memory from /proc while the node uploads. Protocol: the parent sends "start"
 * with the file and server; the child answers "ready" (everything loaded) and waits for "go", then
 * answers "done" with the node's output.
 */
import './env';

import { failChild, type ChildMessage } from './lib/children';
import { createRunner, tenantCredential } from './lib/n8n';

function nextMessage(type: string): Promise<ChildMessage> {
	return new Promise((resolve) => {
		const listener = (message: ChildMessage) => {
			if (message.type !== type) return;
			process.off('message', listener);
			resolve(message);
		};
		process.on('message', listener);
	});
}

async function main() {
	const start = await nextMessage('start');
	const runner = createRunner();
	const credentials = tenantCredential(runner, String(start.baseUrl), String(start.token));
	// Load and warm everything an upload touches (engine, binary data service, node, transport) with a
	// tiny file first, so that the measured run only adds what the large file costs.
	const warm = await runner.runNode({
		type: 'siteTenant',
		parameters: { resource: 'asset', operation: 'upload', binaryPropertyName: 'data' },
		credentials,
		input: [
			{
				json: {},
				binary: {
					data: { data: Buffer.from('warm-up'), fileName: 'warm.txt', mimeType: 'text/plain' },
				},
			},
		],
	});
	if (warm.error) throw warm.error;
	global.gc?.();
	process.send?.({ type: 'ready' });

	await nextMessage('go');
	const started = Date.now();
	const result = await runner.runNode({
		type: 'siteTenant',
		parameters: { resource: 'asset', operation: 'upload', binaryPropertyName: 'data' },
		credentials,
		input: [
			{
				json: {},
				binary: {
					data: {
						filePath: String(start.filePath),
						fileName: 'bench.bin',
						mimeType: 'application/octet-stream',
					},
				},
			},
		],
	});
	if (result.error) throw result.error;
	process.send?.({ type: 'done', ms: Date.now() - started, output: result.items[0]?.json ?? null });
	process.on('disconnect', () => process.exit(0));
}

main().catch(failChild);
