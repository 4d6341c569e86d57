'use strict';
/**
 * A stand-in for an OpenAI-compatible chat-completions endpoint, on loopback, with no model behind it.
 * Used by `npm start` (unless SITE_AI_URL points at a real endpoint) and by the n8n end-to-end tests,
 * which read `requests` to see what n8n sent.
 *
 * `POST /v1/chat/completions` answers deterministically from the conversation it receives:
 * - without tools (a Basic LLM Chain): a content proposal `{url, version, templates, banner}` in a
 *   ```json code block (the shape models tend to answer with), built from the page context in the last
 *   user message, the page version given back as the prompt asks (none when the prompt gives none);
 * - with tools (an AI Agent): the next step of "improve the page and tell the owner": first the page
 *   context tool, then the apply tool with a proposal built from the context it returned, then the
 *   notification tool (when there is one), then a final answer. A user message asking to "first try an
 *   invalid proposal" makes the first apply call carry a proposal without templates; the apply is
 *   tried again with a good one once the tool has answered with an error. A user message saying
 *   "call the tool <name> with <JSON object>" makes it call exactly that tool with those arguments,
 *   once, and then answer with what the tool returned (or its error).
 * `"stream": true` gets the same answer as server-sent events. `GET /v1/models` lists one model.
 */
const http = require('node:http');

const MODEL = 'stand-in';
const INVALID_FIRST = /first try an invalid proposal/i;
const CALL_TOOL = /call the tool (\S+) with (\{.*\})/i;

/** A page of the conversation: from the rendered prompt text, or from a JSON page (a tool's result). */
function pageFrom(source) {
	const text = String(source ?? '');
	try {
		const parsed = JSON.parse(text);
		const page = Array.isArray(parsed) ? parsed[0] : parsed;
		// A context tool's result: its prompt, or the page itself.
		if (page && typeof page.prompt === 'string')
			return { ...pageFrom(page.prompt), size: text.length };
		if (page && typeof page.url === 'string')
			return {
				url: page.url,
				name: page.name || 'this page',
				version: page.version ?? undefined,
				size: text.length,
			};
	} catch {
		// not JSON: a prompt
	}
	const url =
		/^\s*Page:\s*(\S+)/im.exec(text)?.[1] ?? /"url"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '/';
	const name = /^\s*name:\s*(.+)$/im.exec(text)?.[1]?.trim() ?? 'this page';
	// The version the answer instructions ask to give back.
	const version = /"version":\s*"([^"]+)"/.exec(text)?.[1];
	return { url, name, version, size: text.length };
}

function proposalFor(prompt) {
	const { url, name, version, size } = pageFrom(prompt);
	return {
		url,
		...(version ? { version } : {}),
		templates: [
			{ type: 'heading', text: `${name}: rewritten by the AI stand-in` },
			{
				type: 'text',
				body: `A clearer introduction to ${name}, proposed from ${size} characters of page context.`,
			},
		],
		banner: { title: `Welcome to ${name}`, style: 'ai-stand-in' },
	};
}

const textOf = (content) =>
	Array.isArray(content)
		? content.map((part) => (typeof part === 'string' ? part : (part?.text ?? ''))).join('\n')
		: String(content ?? '');

/** The first tool whose name (or else description) matches. */
function findTool(tools, pattern) {
	return (
		tools.find((tool) => pattern.test(tool.function?.name ?? '')) ??
		tools.find((tool) => pattern.test(tool.function?.description ?? ''))
	);
}

/** Arguments for a tool, one per property of its schema, by what the property's name says it is. */
function argumentsFor(tool, values) {
	return argumentsOf(tool.function?.parameters, values);
}

/**
 * The arguments of one object schema. An object property with properties of its own is filled the
 * same way: n8n's review of tool calls wraps a tool's arguments as {toolParameters, hitlParameters}.
 */
function argumentsOf(parameters, values) {
	const properties = parameters?.properties ?? {};
	const args = {};
	for (const [key, schema] of Object.entries(properties)) {
		if (schema?.type === 'object' && schema.properties) {
			args[key] = argumentsOf(schema, values);
			continue;
		}
		const kind = /proposal/i.test(key)
			? 'proposal'
			: /page|url|path/i.test(key)
				? 'page'
				: /message|text|note/i.test(key)
					? 'message'
					: undefined;
		const value = kind ? values[kind] : '';
		args[key] = kind === 'proposal' && schema?.type !== 'object' ? JSON.stringify(value) : value;
	}
	return args;
}

/** The tool calls made so far, with their results: [{name, args, result}]. */
function toolHistory(messages) {
	const calls = new Map();
	for (const message of messages) {
		for (const call of message?.role === 'assistant' ? (message.tool_calls ?? []) : []) {
			calls.set(call.id, {
				name: call.function?.name,
				args: call.function?.arguments,
				result: undefined,
			});
		}
		if (message?.role === 'tool' && calls.has(message.tool_call_id))
			calls.get(message.tool_call_id).result = textOf(message.content);
	}
	return [...calls.values()];
}

// n8n hands a failed tool's error back as `[{"error": "…"}]` (or `{"error": …}`, or text starting with Error).
const isError = (result) =>
	/^\s*(?:\[\s*)?(?:\{\s*"error"|Error|There was an error)/i.test(result ?? '');

/** The agent's next step: {toolCall: {name, args}} or {content}. */
function nextAgentStep(messages, tools) {
	const userText = messages
		.filter((message) => message?.role === 'user')
		.map((message) => textOf(message.content))
		.join('\n');
	const page =
		/(?:^|\s)(\/[\w/-]*)/.exec(userText)?.[1] ?? (/about/i.test(userText) ? '/about-us' : '/');
	const history = toolHistory(messages);
	const direct = CALL_TOOL.exec(userText);
	const named = direct && tools.find((tool) => tool.function?.name === direct[1]);
	if (named) {
		const called = history.find((call) => call.name === direct[1]);
		if (!called) return { toolCall: { tool: named, args: JSON.parse(direct[2]) } };
		return { content: `Done: ${direct[1]} answered: ${called.result ?? '(nothing)'}` };
	}
	const contextTool = findTool(tools, /context/i);
	const applyTool = findTool(tools, /apply|proposal/i);
	const notifyTool = findTool(tools, /notif|owner/i);
	const ran = (tool) => history.filter((call) => call.name === tool?.function?.name);

	const context = ran(contextTool).find((call) => !isError(call.result));
	if (contextTool && !context) return { toolCall: { tool: contextTool, values: { page } } };
	const proposal = proposalFor(context?.result ?? userText);
	const applies = ran(applyTool);
	if (applyTool && !applies.some((call) => !isError(call.result))) {
		const invalid = applies.length === 0 && INVALID_FIRST.test(userText);
		return {
			toolCall: {
				tool: applyTool,
				values: {
					page: proposal.url,
					proposal: invalid ? { url: proposal.url, templates: 'to be written' } : proposal,
				},
			},
		};
	}
	const message = `The AI stand-in improved ${proposal.url}: ${proposal.templates.length} new content blocks.`;
	if (notifyTool && ran(notifyTool).length === 0)
		return { toolCall: { tool: notifyTool, values: { page: proposal.url, message } } };
	const failures = history.filter((call) => isError(call.result)).length;
	return {
		content: `Done: ${message} The site owner was notified.${failures ? ` (${failures} tool call(s) failed on the way and were retried.)` : ''}`,
	};
}

/** The assistant message for a request: a tool call or a text. */
function answer(body, requestNumber) {
	const messages = Array.isArray(body.messages) ? body.messages : [];
	const tools = Array.isArray(body.tools) ? body.tools : [];
	if (tools.length > 0) {
		const step = nextAgentStep(messages, tools);
		if (step.content !== undefined)
			return { message: { role: 'assistant', content: step.content }, finish: 'stop' };
		const { tool, values, args } = step.toolCall;
		const call = {
			id: `call_standin_${requestNumber}`,
			type: 'function',
			function: {
				name: tool.function.name,
				arguments: JSON.stringify(args ?? argumentsFor(tool, values)),
			},
		};
		return {
			message: { role: 'assistant', content: null, tool_calls: [call] },
			finish: 'tool_calls',
		};
	}
	const lastUser = [...messages].reverse().find((message) => message && message.role === 'user');
	const proposal = proposalFor(textOf(lastUser?.content));
	return {
		message: {
			role: 'assistant',
			content: `Here is the proposal:\n\`\`\`json\n${JSON.stringify(proposal, null, 2)}\n\`\`\``,
		},
		finish: 'stop',
	};
}

const USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

function sendCompletion(res, body, id, { message, finish }) {
	const created = Math.floor(Date.now() / 1000);
	const model = body.model ?? MODEL;
	if (!body.stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(
			JSON.stringify({
				id,
				object: 'chat.completion',
				created,
				model,
				choices: [{ index: 0, message, finish_reason: finish }],
				usage: USAGE,
			}),
		);
		return;
	}
	// Server-sent events: the role, the content (or the tool calls), the finish reason, [DONE].
	res.writeHead(200, {
		'content-type': 'text/event-stream',
		'cache-control': 'no-cache',
		connection: 'keep-alive',
	});
	const chunk = (delta, finishReason = null, extra = {}) =>
		res.write(
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`,
		);
	chunk({ role: 'assistant', content: '' });
	if (message.tool_calls)
		chunk({ tool_calls: message.tool_calls.map((call, index) => ({ index, ...call })) });
	else for (const piece of message.content.match(/[\s\S]{1,40}/g) ?? []) chunk({ content: piece });
	chunk({}, finish);
	if (body.stream_options?.include_usage)
		res.write(
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: USAGE })}\n\n`,
		);
	res.end('data: [DONE]\n\n');
}

/**
 * Starts the stand-in. Options: host (127.0.0.1), port (0 = ephemeral), apiKey (when set, requests
 * without `Authorization: Bearer <apiKey>` get 401). Resolves to {url, baseUrl (…/v1, an OpenAI
 * credential's Base URL), chatCompletionsUrl, requests, close()}.
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
			const route = `${req.method} ${req.url.split('?')[0].replace(/\/+$/, '')}`;
			if (apiKey && req.headers.authorization !== `Bearer ${apiKey}`) {
				return send(401, { error: { message: 'invalid api key' } });
			}
			if (/^GET .*\/models$/.test(route)) {
				return send(200, {
					object: 'list',
					data: [{ id: MODEL, object: 'model', created: 0, owned_by: 'site-management' }],
				});
			}
			if (!/^POST .*\/chat\/completions$/.test(route)) {
				return send(404, {
					error: { message: 'not found: POST /v1/chat/completions and GET /v1/models only' },
				});
			}
			let body;
			try {
				body = JSON.parse(raw || '{}');
			} catch {
				return send(400, { error: { message: 'body is not JSON' } });
			}
			requests.push({ headers: req.headers, body });
			sendCompletion(
				res,
				body,
				`chatcmpl-standin-${requests.length}`,
				answer(body, requests.length),
			);
		});
	});
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			const address = server.address();
			const url = `http://${host}:${address.port}`;
			resolve({
				url,
				baseUrl: `${url}/v1`,
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
