'use strict';
/**
 * In a real n8n (n8n 2.x from tools/n8n-runtime/; n8n 1.x with SITE_N8N_RUNTIME_DIR=tools/n8n1-runtime),
 * with n8n's AI Agent on the OpenAI-compatible stand-in (scripts/lib/ai-stand-in.js): no tool call
 * hands a model a token, and a destructive tool says so to the author.
 *
 * - An AI Agent whose one tool is the Site Management Admin node's tool form
 *   (`n8n-nodes-site-management.siteAdminTool`) saved with Token > Issue, the tenant from
 *   `$fromAI('tenant')`: the stand-in calls it for an existing tenant. The call fails with the node's
 *   "Token > Issue is not available to an AI agent" (n8n 2.x hands the error back to the model and
 *   the agent answers; n8n 1.x's agent stops the run at a tool's error), the reference server issues
 *   no token for the tenant, and nothing the model received, nor the run, holds a token.
 * - Control: the plain Admin node with the same Token > Issue does issue one (counted the same way).
 * - What the editor gets for the tool form's node type over n8n's HTTP API: `/types/nodes.json`,
 *   the node types the editor loads at start (tool forms included). The Resource the tool form shows
 *   offers no Token, and a tool set to Tenant > Delete shows a notice that the model decides which
 *   tenant it deletes; the plain node (from `POST /rest/node-types`) keeps Token and no notice.
 *   "Shows" is decided by n8n's own NodeHelpers.displayParameter, as the editor decides it.
 *
 * Its own stack: reference server in memory, the stand-in, an n8n user folder in a temporary
 * directory, and one `n8n start` that runs the workflows (as the editor does) and serves the node types.
 */
const crypto = require('node:crypto');
const path = require('node:path');

const runtime = require('../../scripts/lib/runtime');
const runtimeInstall = require('../../scripts/lib/install');
const n8nCommands = require('../../scripts/lib/n8n');
const { startAiStandIn } = require('../../scripts/lib/ai-stand-in');
const e2eStack = require('./lib/stack');
const { leaks, pinnedN8nVersion, tokenCount, toolRuns } = require('./lib/run-data');

const say = e2eStack.progressLog('n8n ai secrets');

const N8N_1 = pinnedN8nVersion().startsWith('1.');
const ADMIN_NODE = 'n8n-nodes-site-management.siteAdmin';
const ADMIN_TOOL = `${ADMIN_NODE}Tool`;
const TENANT = 'victim';
const TOOL = 'issue_tenant_token';
const AI_API_KEY = 'ai-stand-in-key-secrets';
const NOT_FOR_AGENTS =
	'Token > Issue is not available to an AI agent: its output is a live token the model would see';
const CREDENTIALS = {
	admin: { id: 'e2eSecretsAdmin1', name: 'Site Management Admin (secrets)', type: 'siteAdminApi' },
	ai: { id: 'e2eSecretsOpenAi', name: 'OpenAI-compatible stand-in', type: 'openAiApi' },
};
const WORKFLOWS = { agent: 'e2eAiNoToken0001', control: 'e2eIssueToken001' };

const ctx = { secrets: new Set() };

const credentialRef = (key) => e2eStack.credentialRef(CREDENTIALS[key]);

const node = (name, type, typeVersion, parameters, x, y = 0, credentials) =>
	e2eStack.workflowNode({ name, type, typeVersion, parameters, credentials, position: [x, y] });

const main = (target) => ({ main: [[{ node: target, type: 'main', index: 0 }]] });
const ai = (kind, target) => ({ [kind]: [[{ node: target, type: kind, index: 0 }]] });
const settings = { executionOrder: 'v1', saveManualExecutions: true };

/** Token > Issue's parameters for the tenant `id`. */
const issueParameters = (id) => ({
	resource: 'token',
	operation: 'issue',
	id,
	expiresIn: 3600,
	revokePrevious: false,
	options: {},
});

/**
 * Start -> Request -> AI Agent, whose model is the stand-in and whose one tool is the Admin node's
 * tool form saved with Token > Issue. The request tells the stand-in to call that tool for TENANT.
 */
function agentWorkflow() {
	const nodes = [
		node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
		node(
			'Request',
			'n8n-nodes-base.set',
			3.4,
			{
				assignments: {
					assignments: [
						{
							id: crypto.randomUUID(),
							name: 'chatInput',
							value: `I need a token for the site "${TENANT}": call the tool ${TOOL} with {"tenant": "${TENANT}"}`,
							type: 'string',
						},
					],
				},
				options: {},
			},
			220,
		),
		node(
			'Agent',
			'@n8n/n8n-nodes-langchain.agent',
			3,
			{
				promptType: 'define',
				text: '={{ $json.chatInput }}',
				options: { systemMessage: 'You manage websites with the tools you have. Answer briefly.' },
			},
			440,
		),
		node(
			'Model',
			'@n8n/n8n-nodes-langchain.lmChatOpenAi',
			1.3,
			{
				model: { __rl: true, mode: 'id', value: 'stand-in' },
				responsesApiEnabled: false,
				options: {},
			},
			300,
			260,
			credentialRef('ai'),
		),
		node(
			TOOL,
			ADMIN_TOOL,
			1,
			{
				descriptionType: 'manual',
				toolDescription:
					'Issues a bearer token for one tenant (website). Argument tenant: the tenant ID.',
				...issueParameters(
					"={{ $fromAI('tenant', 'The ID of the tenant the token is for', 'string') }}",
				),
			},
			560,
			260,
			credentialRef('admin'),
		),
	];
	return {
		id: WORKFLOWS.agent,
		name: 'E2E: an agent asks the Admin tool for a token',
		nodes,
		connections: {
			Start: main('Request'),
			Request: main('Agent'),
			Model: ai('ai_languageModel', 'Agent'),
			[TOOL]: ai('ai_tool', 'Agent'),
		},
		active: false,
		settings,
	};
}

/** Start -> the plain Admin node, Token > Issue for TENANT: the control. */
function controlWorkflow() {
	return {
		id: WORKFLOWS.control,
		name: 'E2E: the plain Admin node issues a token',
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 1, {}, 0),
			node('Issue token', ADMIN_NODE, 1, issueParameters(TENANT), 220, 0, credentialRef('admin')),
		],
		connections: { Start: main('Issue token') },
		active: false,
		settings,
	};
}

beforeAll(async () => {
	await runtimeInstall.ensureRuntime({ log: say });
	ctx.server = await e2eStack.startReferenceServer();
	ctx.secrets.add(ctx.server.adminToken);
	// An existing tenant with a token of its own: the one the model asks a token for.
	ctx.secrets.add((await e2eStack.addTenant(ctx.server, TENANT)).token);
	ctx.ai = await startAiStandIn({ apiKey: AI_API_KEY });
	say(`reference server ${ctx.server.url}; AI stand-in ${ctx.ai.baseUrl}`);

	// With the editor: n8n writes the editor's /types/nodes.json only then.
	Object.assign(ctx, await e2eStack.prepareN8nFolder('site-n8n-ai-secrets-', { editor: true }));
	await e2eStack.importFixtures(ctx, {
		credentials: [
			{ ...CREDENTIALS.admin, data: { baseUrl: ctx.server.url, token: ctx.server.adminToken } },
			{
				...CREDENTIALS.ai,
				data: { apiKey: AI_API_KEY, organizationId: '', url: ctx.ai.baseUrl, header: false },
			},
		],
		workflows: [agentWorkflow(), controlWorkflow()],
	});
	ctx.runner = await e2eStack.restRunner(ctx, 'aisecrets');
	say(`credentials and workflows imported; n8n ${ctx.n8nUrl}`);
}, runtimeInstall.INSTALL_TIMEOUT_MS);

afterAll(async () => {
	await ctx.ai?.close();
	await e2eStack.stopStack(ctx);
});

describe(`AI tools hand no token to a model (n8n ${pinnedN8nVersion()})`, () => {
	const agentStops = !runtime.RUNTIME.agentReturnsToolErrors;
	test(
		agentStops
			? "the agent calls the Admin tool saved as Token > Issue: n8n 1.x's agent stops the run at the tool's refusal; no token is issued or seen"
			: "the agent calls the Admin tool saved as Token > Issue: the model gets the tool's refusal, no token is issued or seen",
		async () => {
			const tokensBefore = tokenCount(ctx.server, TENANT);
			const requestsBefore = ctx.ai.requests.length;
			say(`run ${WORKFLOWS.agent} in n8n`);
			const result = await ctx.runner.execute(WORKFLOWS.agent);
			const run = result.run;
			expect(run).toBeDefined();
			const requests = ctx.ai.requests.slice(requestsBefore);
			say(
				`agent run: ${result.failed ? 'failed' : 'succeeded'}; ${requests.length} model request(s); tool runs ${JSON.stringify(toolRuns(run, TOOL))}`,
			);

			// The model was offered the tool, with the tenant as its argument, and called it.
			const offered = requests[0].body.tools.map((tool) => tool.function);
			expect(offered.map((tool) => tool.name)).toEqual([TOOL]);
			expect(Object.keys(offered[0].parameters.properties)).toEqual(['tenant']);
			// The one call was refused; all the tool put out (n8n 2.x: its error as an item) is the
			// refusal. (n8n 1.x also records an empty run next to the failed one.)
			const runs = toolRuns(run, TOOL);
			expect(runs.map((toolRun) => toolRun.error).filter(Boolean)).toEqual([NOT_FOR_AGENTS]);
			expect(runs.flatMap((toolRun) => toolRun.output ?? [])).toEqual(
				N8N_1 ? [] : [{ error: NOT_FOR_AGENTS }],
			);

			if (agentStops) {
				// n8n 1.x: the tool's error ends the run; the model is not asked again.
				expect(result.failed).toBe(true);
				expect(run.data.resultData.error.message).toContain(NOT_FOR_AGENTS);
				expect(requests).toHaveLength(1);
			} else {
				expect(result.failed).toBe(false);
				expect(requests).toHaveLength(2);
				const messages = requests[1].body.messages;
				const call = messages.find((message) => message.tool_calls)?.tool_calls[0];
				expect(call.function.name).toBe(TOOL);
				// (n8n writes the call's id into the arguments it sends back.)
				expect(JSON.parse(call.function.arguments)).toMatchObject({ tenant: TENANT });
				const answer = messages.find(
					(message) => message.role === 'tool' && message.tool_call_id === call.id,
				);
				expect(answer.content).toContain(NOT_FOR_AGENTS);
				const agentOutput = n8nCommands.nodeItems(run, 'Agent')[0].output;
				expect(agentOutput).toContain(`Done: ${TOOL} answered:`);
				expect(agentOutput).toContain(NOT_FOR_AGENTS);
			}

			// No token was issued, and none reached the model or the run.
			expect(tokenCount(ctx.server, TENANT)).toBe(tokensBefore);
			expect(leaks(JSON.stringify(requests), ctx.secrets)).toEqual([]);
			expect(leaks(JSON.stringify(run), ctx.secrets)).toEqual([]);
		},
	);

	test('control: the plain Admin node with the same Token > Issue does issue a token (counted the same way)', async () => {
		const tokensBefore = tokenCount(ctx.server, TENANT);
		const run = await e2eStack.executeOk(WORKFLOWS.control, { runner: ctx.runner, log: say });
		const [issued] = n8nCommands.nodeItems(run, 'Issue token');
		expect(issued.token).toMatch(/^stt_/);
		ctx.secrets.add(issued.token);
		expect(tokenCount(ctx.server, TENANT)).toBe(tokensBefore + 1);
		// The model never saw this one either.
		expect(leaks(JSON.stringify(ctx.ai.requests), ctx.secrets)).toEqual([]);
	});

	test("the editor's description of the tool form: no Token resource; Tenant > Delete shows its notice", async () => {
		ctx.n8n = await e2eStack.startN8nIn(ctx);
		const cookie = await e2eStack.ownerCookie(ctx.n8nUrl, 'aisecrets');
		const send = async (urlPath, init) => {
			const response = await fetch(`${ctx.n8nUrl}${urlPath}`, {
				...init,
				headers: {
					cookie,
					'browser-id': 'site-management-start',
					'content-type': 'application/json',
				},
			});
			return { status: response.status, text: await response.text() };
		};
		// Once more on a connection n8n closed under the client (a kept-alive socket closed as it was
		// reused: "other side closed" under CI's load); an answer of any status is never retried.
		const request = async (urlPath, init = {}) => {
			try {
				return await send(urlPath, init);
			} catch (error) {
				say(`${urlPath}: ${error.message} (${error.cause?.message ?? 'no cause'}), once more`);
				return await send(urlPath, init);
			}
		};
		const ok = async (urlPath, init) => {
			const { status, text } = await request(urlPath, init);
			if (status !== 200) throw new Error(`${urlPath}: HTTP ${status} ${text.slice(0, 300)}`);
			return JSON.parse(text);
		};
		const nodeInfo = async (name) =>
			await request('/rest/node-types', {
				method: 'POST',
				body: JSON.stringify({ nodeInfos: [{ name, version: 1 }] }),
			});
		const byName = (list, name) => list.find((description) => description.name === name);

		// The list the editor loads at start: every node type's full description, tool forms included.
		const tool = byName(await ok('/types/nodes.json'), ADMIN_TOOL);
		// The description the editor asks for when it lacks one: no use for a community node's tool
		// form on either version (the editor has it from /types/nodes.json). n8n 2.41.1 answers 400
		// "Unrecognized node type" (its node-types controller does not resolve synthetic tool types);
		// n8n 1.x answers a description built with Object.create, whose properties JSON leaves out.
		const toolInfo = await nodeInfo(ADMIN_TOOL);
		say(
			`POST /rest/node-types ${ADMIN_TOOL}: HTTP ${toolInfo.status} ${toolInfo.text.slice(0, 80)}…`,
		);
		if (N8N_1) {
			expect(toolInfo.status).toBe(200);
			const [answered] = JSON.parse(toolInfo.text).data;
			expect(answered.displayName).toBe('Site Management Admin Tool');
			expect(answered.properties).toBeUndefined();
		} else {
			expect(toolInfo.status).toBe(400);
			expect(toolInfo.text).toContain(`Unrecognized node type: ${ADMIN_TOOL}`);
		}
		const plainInfo = await nodeInfo(ADMIN_NODE);
		expect(plainInfo.status).toBe(200);
		const [plain] = JSON.parse(plainInfo.text).data;
		expect(plain).toBeDefined();

		const { NodeHelpers } = require(path.join(runtime.RUNTIME_MODULES, 'n8n-workflow'));
		/** The properties the editor shows for a node of this description with these parameters. */
		const shown = (description, parameters) =>
			description.properties.filter((property) =>
				NodeHelpers.displayParameter(
					parameters,
					property,
					{ name: 'node', type: description.name, typeVersion: 1, parameters },
					description,
				),
			);
		const resourcesShown = (description, parameters) =>
			shown(description, parameters)
				.filter((property) => property.name === 'resource')
				.flatMap((property) => property.options.map((option) => option.value));
		const notices = (description, parameters) =>
			shown(description, parameters)
				.filter((property) => property.type === 'notice')
				.map((property) => property.displayName);

		say(`/types/nodes.json: ${tool?.displayName} (${tool?.properties?.length} properties)`);
		expect(tool).toBeDefined();
		expect(tool.displayName).toBe('Site Management Admin Tool');
		// The Resource the tool form shows offers no Token, whichever resource was saved (n8n adds
		// its own "Custom API Call" to a community node's resources).
		for (const resource of ['tenant', 'token']) {
			const offered = resourcesShown(tool, { resource, operation: 'issue' });
			expect(offered).toContain('tenant');
			expect(offered).not.toContain('token');
		}
		const toolResource = tool.properties.find(
			(property) =>
				property.name === 'resource' && property.displayOptions?.show?.['@tool']?.includes(true),
		);
		expect(toolResource.options.map((option) => option.value)).not.toContain('token');

		// Tenant > Delete: the notice is shown in the tool form, for Delete only.
		const deleteNotice = tool.properties.find(
			(property) =>
				property.type === 'notice' &&
				property.displayOptions?.show?.['@tool']?.includes(true) &&
				property.displayOptions?.show?.operation?.includes('delete'),
		);
		expect(deleteNotice?.displayName).toMatch(/^As a tool, this lets the model delete a tenant/);
		expect(notices(tool, { resource: 'tenant', operation: 'delete' })).toContain(
			deleteNotice.displayName,
		);
		for (const operation of ['create', 'createOrUpdate', 'update'])
			expect(notices(tool, { resource: 'tenant', operation })).not.toContain(
				deleteNotice.displayName,
			);
		// The plain node keeps Token and shows no tool notice.
		expect(resourcesShown(plain, { resource: 'token', operation: 'issue' })).toEqual(
			expect.arrayContaining(['tenant', 'token']),
		);
		expect(
			notices(plain, { resource: 'tenant', operation: 'delete' }).filter((text) =>
				/^As a tool/.test(text),
			),
		).toEqual([]);
	});
});
