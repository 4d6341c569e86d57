'use strict';
/**
 * The options of `npm start` (scripts/start.js): `npm start -- --help` prints them and exits; ports
 * are flags as well as environment variables (a flag wins); anything unknown is an error naming it.
 */
const { parseArgs } = require('node:util');

const OPTIONS = {
	help: { type: 'boolean', short: 'h', text: 'print these options and exit' },
	queue: {
		type: 'boolean',
		text: "n8n in queue mode: Redis, PostgreSQL, a main process, 2 workers and 2 webhook processors (Debian's redis-server and postgresql)",
	},
	'n8n-port': { type: 'string', env: 'N8N_PORT', default: '5678', text: "n8n's port" },
	'broker-port': {
		type: 'string',
		env: 'N8N_RUNNERS_BROKER_PORT',
		default: 'the n8n port + 1',
		text: "n8n's task broker",
	},
	'server-port': {
		type: 'string',
		env: 'SITE_SERVER_PORT',
		default: '4010',
		text: 'the reference server',
	},
	'ai-port': {
		type: 'string',
		env: 'SITE_AI_PORT',
		default: '4011',
		text: 'the AI stand-in (not started when SITE_AI_URL is set)',
	},
	'mail-port': {
		type: 'string',
		env: 'SITE_MAIL_PORT',
		default: '4025',
		text: "the mail sink that keeps n8n's review e-mails (the imported SMTP credential points at it)",
	},
	'queue-proxy-port': {
		type: 'string',
		env: 'SITE_QUEUE_PROXY_PORT',
		default: '5690',
		text: "with --queue: the webhook address, a proxy over n8n's webhook processors",
	},
};

const ENVIRONMENT = [
	['SITE_AI_URL, SITE_AI_KEY', 'a real OpenAI-compatible endpoint and key instead of the stand-in'],
	['SITE_AI_MODEL', 'the model name written into the AI examples (they name gpt-4o-mini)'],
	['SITE_START_DATA', 'another folder instead of .data/ for the servers, n8n and the logins'],
	['SITE_START_SKIP_BUILD=1', 'start without building the package first'],
	[
		'SITE_N8N_RUNTIME_DIR',
		'another n8n runtime folder (default tools/n8n-runtime/, installed there on first use: about 6 minutes and 3 GB)',
	],
];

function helpText() {
	const lines = [
		'npm start [-- options]: the reference server, a demo site and a real n8n with this package and the examples, on 127.0.0.1.',
		'',
		'Options (a flag wins over its environment variable):',
	];
	for (const [name, option] of Object.entries(OPTIONS)) {
		const flag = `--${name}${option.type === 'string' ? ' <port>' : ''}`;
		const env = option.env ? ` (${option.env}, default ${option.default})` : '';
		lines.push(`  ${flag.padEnd(22)} ${option.text}${env}`);
	}
	lines.push('', 'Environment:');
	for (const [name, text] of ENVIRONMENT) lines.push(`  ${name.padEnd(24)} ${text}`);
	lines.push(
		'',
		'Data: .data/ (stack.json holds the admin token, the demo token and the owner login).',
		'Ctrl-C stops everything; the next start reuses it.',
	);
	return lines.join('\n');
}

/** The parsed options; prints the help and exits for --help, exits 2 on a bad option. */
function readStartOptions(argv, { exit = process.exit, print = console.log } = {}) {
	let parsed;
	try {
		parsed = parseArgs({
			args: argv,
			options: Object.fromEntries(
				Object.entries(OPTIONS).map(([name, { type, short }]) => [
					name,
					short ? { type, short } : { type },
				]),
			),
			strict: true,
		});
	} catch (error) {
		print(`npm start: ${error.message}\n\n${helpText()}`);
		return exit(2);
	}
	const { values } = parsed;
	if (values.help) {
		print(helpText());
		return exit(0);
	}
	for (const name of ['n8n-port', 'broker-port', 'server-port', 'ai-port']) {
		if (values[name] === undefined) continue;
		const port = Number(values[name]);
		if (!Number.isInteger(port) || port < 1 || port > 65535) {
			print(`npm start: --${name} must be a port number (1 to 65535), got "${values[name]}"`);
			return exit(2);
		}
	}
	return { options: values };
}

module.exports = { readStartOptions };
