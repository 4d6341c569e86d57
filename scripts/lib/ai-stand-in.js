'use strict';
/**
 * A stand-in for an OpenAI-compatible chat-completions endpoint, on loopback, with no model behind it.
 * `POST /v1/chat/completions` answers a chat completion whose message content is a content proposal
 * `{url, templates, banner}` in a ```json code block (the shape models tend to answer with), built
 * from the page context found in the last user message. Used by `npm start` (unless SITE_AI_URL
 * points at a real endpoint) and by the n8n end-to-end tests, which read `requests` to see what n8n sent.
 */
const http = require('node:http');

function proposalFor(prompt) {
	const text = String(prompt ?? '');
	const url = /^\s*Page:\s*(\S+)/im.exec(text)?.[1] ?? /"url"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '/';
	const name = /^\s*name:\s*(.+)$/im.exec(text)?.[1]?.trim() ?? 'this page';
	return {
		url,
		templates: [
			{ type: 'heading', text: `${name}: rewritten by the AI stand-in` },
			{ type: 'text', body: `A clearer introduction to ${name}, proposed from ${text.length} characters of page context.` },
		],
		banner: { title: `Welcome to ${name}`, style: 'ai-stand-in' },
	};
}

/**
 * Starts the stand-in. Options: host (127.0.0.1), port (0 = ephemeral), apiKey (when set, requests
 * without `Authorization: Bearer <apiKey>` get 401). Resolves to {url, chatCompletionsUrl, requests, close()}.
 */
function startAiStandIn({ host = '127.0.0.1', port = 0, apiKey } = {}) {
	const requests = [];
	const server = http.createServer((req, res) => {
		let raw = '';
		req.setEncoding('utf8');
		req.on('data', (chunk) => (raw += chunk));
		req.on('end', () => {
			const send = (status, body) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.method !== 'POST' || !/\/chat\/completions\/?$/.test(req.url.split('?')[0])) {
				return send(404, { error: { message: 'not found: POST /v1/chat/completions only' } });
			}
			if (apiKey && req.headers.authorization !== `Bearer ${apiKey}`) {
				return send(401, { error: { message: 'invalid api key' } });
			}
			let body;
			try {
				body = JSON.parse(raw || '{}');
			} catch {
				return send(400, { error: { message: 'body is not JSON' } });
			}
			requests.push({ headers: req.headers, body });
			const messages = Array.isArray(body.messages) ? body.messages : [];
			const lastUser = [...messages].reverse().find((m) => m && m.role === 'user');
			const proposal = proposalFor(lastUser?.content);
			send(200, {
				id: `chatcmpl-standin-${requests.length}`,
				object: 'chat.completion',
				created: Math.floor(Date.now() / 1000),
				model: body.model ?? 'stand-in',
				choices: [
					{
						index: 0,
						message: { role: 'assistant', content: `Here is the proposal:\n\`\`\`json\n${JSON.stringify(proposal, null, 2)}\n\`\`\`` },
						finish_reason: 'stop',
					},
				],
				usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
			});
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			const address = server.address();
			const url = `http://${host}:${address.port}`;
			resolve({
				url,
				chatCompletionsUrl: `${url}/v1/chat/completions`,
				requests,
				close: () =>
					new Promise((done) => {
						server.close(() => done());
						server.closeAllConnections?.();
					}),
			});
		});
	});
}

module.exports = { startAiStandIn, proposalFor };
