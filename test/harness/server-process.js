// A reference server in a process of its own (e2e/load/webhook-memory.load.ts), so its memory can be
// measured apart from the test runner's. Runs the build (npm run build makes reference-server/dist).
// Answers 'memory' messages with its resident set (VmRSS) and peak (VmHWM), in bytes; 'reset-peak'
// sets the peak back to the current resident set.
const fs = require('fs');
const path = require('path');
const { startServer } = require(path.join(__dirname, '..', '..', 'reference-server', 'dist'));

function kb(field) {
	const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
		fs.readFileSync('/proc/self/status', 'utf8'),
	);
	return match ? Number(match[1]) * 1024 : NaN;
}

startServer({
	port: 0,
	memory: true,
	logger: false,
	adminToken: process.env.ADMIN_TOKEN,
	formRatePerAddress: 0,
	formRatePerTenant: 0,
	// Webhook receivers (n8n, test receivers) listen on loopback, refused by default.
	webhookAllow: 'loopback',
}).then((server) => {
	process.on('message', (message) => {
		if (message === 'reset-peak') fs.writeFileSync('/proc/self/clear_refs', '5');
		if (message === 'memory' || message === 'reset-peak')
			process.send({ rss: kb('VmRSS'), peak: kb('VmHWM') });
		if (message === 'stop') server.close().then(() => process.exit(0));
	});
	process.send({ url: server.url });
});
