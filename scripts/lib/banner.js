'use strict';
/**
 * What `npm start` prints once the stack is up: where everything is and how to sign in. `stateFile`:
 * the stack.json the tokens are in, as the user should look for it (SITE_START_DATA moves it).
 */
const { DEMO_TENANT } = require('./demo-site');
const path = require('node:path');

const { CREDENTIALS, PUBLISHED, QUEUE_PUBLISHED, WORKFLOWS, exampleName } = require('./stack');

/** A path as the user should look for it: relative to the checkout `root` when inside it. */
function shownPath(root, file) {
	const relative = path.relative(root, file);
	return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

/** Every example `npm start` imports, by its name in n8n, the published ones marked. */
function workflowLines(queue) {
	const published = queue ? QUEUE_PUBLISHED : PUBLISHED;
	return Object.values(WORKFLOWS).map(
		(workflow) =>
			`    ${exampleName(workflow)}${published.includes(workflow) ? '   (published)' : ''}`,
	);
}

function banner({
	n8nUrl,
	owner,
	ownerNote,
	queueLines,
	serverUrl,
	webhook,
	aiUrl,
	realAi,
	queue,
	stateFile,
	mailPort,
}) {
	const lines = [
		'',
		'Site Management stack is running (127.0.0.1 only):',
		'',
		`  n8n               ${n8nUrl}`,
		`    owner login     ${owner.email}  /  ${owner.password}   (${ownerNote})`,
		...queueLines,
		`  reference server  ${serverUrl}   (API document: ${serverUrl}/openapi.json)`,
		`    admin token     in ${stateFile} and in the n8n credential "${CREDENTIALS.admin.name}"`,
		`  demo site         tenant "${DEMO_TENANT}", pages / /about-us /contact; its token is in the credential "${CREDENTIALS.tenant.name}"`,
		`  contact form      POST ${serverUrl}/forms/${DEMO_TENANT}/contact  ->  ${webhook ?? '(the trigger has not registered yet; see the n8n log)'}`,
		`  AI endpoint       ${aiUrl}${realAi ? '' : '  (stand-in; set SITE_AI_URL and SITE_AI_KEY for a real one)'}`,
		`    in n8n          the OpenAI credential "${CREDENTIALS.ai.name}" (Base URL above)`,
		...(queue
			? []
			: [
					`  MCP server        ${n8nUrl}/mcp/site-tools   (streamable HTTP; bearer token: mcpToken in ${stateFile})`,
				]),
		`  mail sink         smtp://127.0.0.1:${mailPort}   (n8n's review e-mails; their links are printed here; credential "${CREDENTIALS.mail.name}")`,
		'',
		'  Workflows in n8n:',
		...workflowLines(queue),
		'',
		'  Try the contact form:',
		`    curl -X POST ${serverUrl}/forms/${DEMO_TENANT}/contact -H 'content-type: application/json' \\`,
		`      -d '{"name": "Ada", "email": "ada@example.com", "message": "Hello"}'`,
		'',
		'Press Ctrl-C to stop n8n and the reference server.',
	];
	return lines.join('\n');
}

module.exports = { banner, shownPath };
