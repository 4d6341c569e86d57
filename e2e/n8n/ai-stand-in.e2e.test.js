'use strict';
/**
 * The AI stand-in as the OpenAI client n8n's chat model uses (the `openai` package of the n8n
 * runtime) sees it: plain and streamed answers, tool calls decided from the conversation, models.
 */
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const { startAiStandIn } = require('../../scripts/lib/ai-stand-in');

const TOOLS = [
	['get_page_context', { page: { type: 'string' } }],
	['apply_proposal', { page: { type: 'string' }, proposal: { type: 'string' } }],
	['notify_site_owner', { page: { type: 'string' }, message: { type: 'string' } }],
].map(([name, properties]) => ({
	type: 'function',
	function: { name, description: name, parameters: { type: 'object', properties } },
}));

let OpenAI;
let ai;
let client;
beforeAll(async () => {
	// On a fresh machine this file may run before the stack test has installed the runtime.
	await runtimeInstall.ensureRuntime({ log: (line) => console.log(`[ai stand-in] ${line}`) });
	OpenAI = require(path.join(runtime.RUNTIME_MODULES, 'openai')).default;
	ai = await startAiStandIn({ apiKey: 'stand-in-test-key' });
	client = new OpenAI({ apiKey: 'stand-in-test-key', baseURL: ai.baseUrl, maxRetries: 0 });
}, runtimeInstall.INSTALL_TIMEOUT_MS);
afterAll(async () => ai?.close());

/** A streamed completion put back together the way a client does: content, tool calls, finish reason. */
async function streamed(body) {
	const stream = await client.chat.completions.create({
		...body,
		stream: true,
		stream_options: { include_usage: true },
	});
	const result = { content: '', toolCalls: [], finish: undefined, usage: undefined };
	for await (const chunk of stream) {
		if (chunk.usage) result.usage = chunk.usage;
		const choice = chunk.choices[0];
		if (!choice) continue;
		result.content += choice.delta.content ?? '';
		for (const call of choice.delta.tool_calls ?? []) {
			result.toolCalls[call.index] ??= { id: call.id, name: '', arguments: '' };
			result.toolCalls[call.index].name += call.function?.name ?? '';
			result.toolCalls[call.index].arguments += call.function?.arguments ?? '';
		}
		result.finish = choice.finish_reason ?? result.finish;
	}
	return result;
}

test('without tools: a proposal in a json code block, the same streamed as plain', async () => {
	const body = { model: 'm', messages: [{ role: 'user', content: 'Page: /team\nname: Team\n' }] };
	const plain = await client.chat.completions.create(body);
	const content = plain.choices[0].message.content;
	expect(content).toMatch(/```json\n\{\n {2}"url": "\/team"/);
	const stream = await streamed(body);
	expect(stream).toMatchObject({
		content,
		finish: 'stop',
		toolCalls: [],
		usage: { total_tokens: 0 },
	});
});

test('with tools, streamed: context, then apply with a proposal built from the context, then notify, then an answer', async () => {
	const messages = [{ role: 'user', content: 'Improve /team and tell the owner.' }];
	const steps = [];
	for (let step = 0; step < 4; step++) {
		const answer = await streamed({ model: 'm', messages, tools: TOOLS });
		steps.push(answer);
		if (answer.finish !== 'tool_calls') break;
		const [call] = answer.toolCalls;
		messages.push({
			role: 'assistant',
			content: null,
			tool_calls: [
				{ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } },
			],
		});
		const result =
			call.name === 'get_page_context'
				? [{ url: '/team', name: 'Team', templates: [] }]
				: [{ ok: true }];
		messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
	}
	expect(steps.map((step) => step.toolCalls[0]?.name ?? step.content.slice(0, 5))).toEqual([
		'get_page_context',
		'apply_proposal',
		'notify_site_owner',
		'Done:',
	]);
	expect(JSON.parse(steps[0].toolCalls[0].arguments)).toEqual({ page: '/team' });
	const applied = JSON.parse(steps[1].toolCalls[0].arguments);
	expect(applied.page).toBe('/team');
	expect(JSON.parse(applied.proposal)).toMatchObject({
		url: '/team',
		templates: [
			{ type: 'heading', text: 'Team: rewritten by the AI stand-in' },
			expect.any(Object),
		],
	});
	expect(JSON.parse(steps[2].toolCalls[0].arguments).message).toContain('/team');
});

test('a tool error makes the stand-in apply again; models are listed; a wrong key gets 401', async () => {
	const messages = [
		{ role: 'user', content: 'Improve /team; first try an invalid proposal.' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{ id: 'a', type: 'function', function: { name: 'get_page_context', arguments: '{}' } },
			],
		},
		{ role: 'tool', tool_call_id: 'a', content: '[{"url": "/team", "name": "Team"}]' },
	];
	const first = await client.chat.completions.create({ model: 'm', messages, tools: TOOLS });
	const invalid = first.choices[0].message.tool_calls[0];
	expect(JSON.parse(JSON.parse(invalid.function.arguments).proposal).templates).toBe(
		'to be written',
	);
	messages.push(first.choices[0].message, {
		role: 'tool',
		tool_call_id: invalid.id,
		content: '[{"error": "Proposal templates must be an array"}]',
	});
	const second = await client.chat.completions.create({ model: 'm', messages, tools: TOOLS });
	const retry = second.choices[0].message.tool_calls[0];
	expect(retry.function.name).toBe('apply_proposal');
	expect(Array.isArray(JSON.parse(JSON.parse(retry.function.arguments).proposal).templates)).toBe(
		true,
	);

	expect((await client.models.list()).data.map((model) => model.id)).toEqual(['stand-in']);
	const wrongKey = new OpenAI({ apiKey: 'wrong', baseURL: ai.baseUrl, maxRetries: 0 });
	await expect(wrongKey.models.list()).rejects.toMatchObject({ status: 401 });
});

test('"call the tool <name> with {…}": exactly that tool with those arguments, once, then its answer', async () => {
	const tools = [
		...TOOLS,
		{
			type: 'function',
			function: {
				name: 'issue_tenant_token',
				description: 'issue',
				parameters: { type: 'object', properties: { tenant: { type: 'string' } } },
			},
		},
	];
	const messages = [
		{ role: 'user', content: 'Call the tool issue_tenant_token with {"tenant": "victim"}.' },
	];
	const first = (await streamed({ model: 'm', messages, tools })).toolCalls;
	expect(first.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
		['issue_tenant_token', { tenant: 'victim' }],
	]);
	messages.push(
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id: first[0].id,
					type: 'function',
					function: { name: first[0].name, arguments: first[0].arguments },
				},
			],
		},
		{ role: 'tool', tool_call_id: first[0].id, content: '[{"error": "not available"}]' },
	);
	const second = await client.chat.completions.create({ model: 'm', messages, tools });
	expect(second.choices[0].message.content).toBe(
		'Done: issue_tenant_token answered: [{"error": "not available"}]',
	);
});

test("a tool behind n8n's review of tool calls: its arguments go inside toolParameters, with the version the context gave", async () => {
	const wrapped = (name, properties) => ({
		type: 'function',
		function: {
			name,
			description: name,
			parameters: {
				type: 'object',
				properties: {
					toolParameters: { type: 'object', properties },
					hitlParameters: { type: 'object', properties: {} },
				},
			},
		},
	});
	const tools = [
		TOOLS[0],
		wrapped('apply_proposal', { page: { type: 'string' }, proposal: { type: 'string' } }),
	];
	const context = {
		url: '/team',
		version: '2026-01-02T03:04:05.678Z',
		prompt:
			'Page: /team\nname: Team\n\nAnswer … {"url": "/team", "version": "2026-01-02T03:04:05.678Z", …',
	};
	const messages = [
		{ role: 'user', content: 'Improve /team.' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{ id: 'c', type: 'function', function: { name: 'get_page_context', arguments: '{}' } },
			],
		},
		{ role: 'tool', tool_call_id: 'c', content: JSON.stringify([context]) },
	];
	const answer = await client.chat.completions.create({ model: 'm', messages, tools });
	const args = JSON.parse(answer.choices[0].message.tool_calls[0].function.arguments);
	expect(args.hitlParameters).toEqual({});
	expect(args.toolParameters.page).toBe('/team');
	expect(JSON.parse(args.toolParameters.proposal)).toMatchObject({
		url: '/team',
		version: context.version,
	});
});
