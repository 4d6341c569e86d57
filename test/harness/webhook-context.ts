/**
 * Drives a webhook trigger node the way n8n does, over real HTTP.
 *
 * - Activation and deactivation build n8n-core's own HookContext (workflow, node, additionalData,
 *   mode, activation, webhookData) and call the node's `checkExists`, then `create` when it answers
 *   false, and `delete`, as n8n's WebhookService does for production webhooks (activation) and its
 *   TestWebhooks for the editor's "Execute step" on a trigger (mode and activation "manual", isTest).
 * - A local HTTP server on 127.0.0.1 stands in for n8n's webhook server: `/webhook/...` for
 *   production, `/webhook-test/...` for test URLs. For a registered URL it reads and parses the body
 *   as n8n's body parser does, builds n8n-core's WebhookContext with the request and an express-like
 *   response, calls the node's `webhook()`, and answers as n8n's webhook helpers do for
 *   responseMode "onReceived". Every call and what the node returned is recorded.
 * - Credentials come from the in-memory TestCredentialsHelper; static data lives in the Workflow
 *   object, which stands in for the saved workflow: hooks (activation) change it, and each webhook
 *   request gets a copy that is thrown away, as in n8n.
 */
import { randomUUID } from 'crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo } from 'net';
import { HookContext, WebhookContext } from 'n8n-core';
import type {
	ICredentialType,
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials-helper';
import { TestNodeTypes, createAdditionalData } from './workflow-runner';

/** One request the webhook server received, and what came of it. */
export interface WebhookCall {
	url: string;
	isTest: boolean;
	requestHeaders: IDataObject;
	requestBody: string;
	status: number;
	/** The answer's body, parsed when it was JSON. */
	responseBody: unknown;
	/** What the node returned; undefined when webhook() threw. */
	result?: IWebhookResponseData;
	/** The items that would start the workflow (first output), when the node started it. */
	items?: INodeExecutionData[];
	error?: Error;
}

interface Route {
	trigger: TriggerWorkflow;
	isTest: boolean;
}

/** A minimal express-like response over node's ServerResponse: what WebhookContext users call. */
class ExpressLikeResponse {
	statusCode = 200;
	body: string | undefined;

	constructor(private readonly raw: ServerResponse) {}

	get headersSent(): boolean {
		return this.raw.headersSent;
	}

	get writableEnded(): boolean {
		return this.raw.writableEnded;
	}

	status(code: number) {
		this.statusCode = code;
		return this;
	}

	setHeader(name: string, value: string | number | string[]) {
		this.raw.setHeader(name, value);
		return this;
	}

	header(name: string, value: string) {
		return this.setHeader(name, value);
	}

	set(name: string, value: string) {
		return this.setHeader(name, value);
	}

	type(contentType: string) {
		return this.setHeader(
			'content-type',
			contentType.includes('/') ? contentType : `application/${contentType}`,
		);
	}

	json(data: unknown) {
		if (!this.raw.hasHeader('content-type'))
			this.raw.setHeader('content-type', 'application/json; charset=utf-8');
		return this.send(JSON.stringify(data));
	}

	send(data?: unknown) {
		if (this.raw.writableEnded) return this;
		let text: string;
		if (data === undefined || data === null) text = '';
		else if (Buffer.isBuffer(data)) text = data.toString('utf8');
		else if (typeof data === 'object') {
			if (!this.raw.hasHeader('content-type'))
				this.raw.setHeader('content-type', 'application/json; charset=utf-8');
			text = JSON.stringify(data);
		} else text = String(data);
		this.body = text;
		this.raw.statusCode = this.statusCode;
		this.raw.end(text);
		return this;
	}

	end(data?: string) {
		if (this.raw.writableEnded) return this;
		this.raw.statusCode = this.statusCode;
		this.body = data ?? this.body ?? '';
		this.raw.end(data);
		return this;
	}
}

function readBody(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/**
 * n8n's body parser: JSON for exactly application/json, urlencoded, text/plain as a string; an
 * unparsable JSON body is answered 422 before any node sees it; an empty (or null) body becomes {}.
 */
function parseLikeN8n(
	raw: Buffer,
	contentTypeHeader: string | undefined,
): { body: unknown } | { unprocessable: string } {
	const contentType = contentTypeHeader?.split(';')[0].trim().toLowerCase();
	let body: unknown;
	if (raw.length > 0) {
		try {
			if (contentType === 'application/json') body = JSON.parse(raw.toString('utf8'));
			else if (contentType === 'application/x-www-form-urlencoded')
				body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
			else if (contentType === 'text/plain') body = raw.toString('utf8');
		} catch (error) {
			return { unprocessable: (error as Error).message };
		}
	}
	return { body: body || {} };
}

interface WebhookServerOptions {
	nodeTypes: Record<string, INodeType>;
	credentialTypes: ICredentialType[];
}

/** The stand-in for n8n's webhook server plus what every context needs (additionalData). */
export class WebhookHarness {
	readonly nodeTypes: TestNodeTypes;
	readonly credentials: TestCredentialsHelper;
	readonly calls: WebhookCall[] = [];
	/**
	 * Called with each call as it is recorded, once its answer has been sent: a test acts at that
	 * moment (between two attempts of a sender) instead of polling for it.
	 */
	onCall: ((call: WebhookCall) => void) | undefined;
	private readonly routes = new Map<string, Route>();
	private server!: Server;
	baseUrl = '';

	private constructor(options: WebhookServerOptions) {
		this.nodeTypes = new TestNodeTypes(options.nodeTypes);
		this.credentials = new TestCredentialsHelper(options.credentialTypes);
	}

	static async start(options: WebhookServerOptions): Promise<WebhookHarness> {
		const harness = new WebhookHarness(options);
		harness.server = createServer((request, response) => {
			harness.handle(request, response).catch((error: Error) => {
				if (!response.writableEnded) {
					response.statusCode = 500;
					response.end(JSON.stringify({ message: error.message }));
				}
			});
		});
		await new Promise<void>((resolve) => harness.server.listen(0, '127.0.0.1', resolve));
		const { port } = harness.server.address() as AddressInfo;
		harness.baseUrl = `http://127.0.0.1:${port}`;
		return harness;
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	/** additionalData as n8n hands it to hook and webhook contexts. */
	additionalData(
		extra: Partial<IWorkflowExecuteAdditionalData> = {},
	): IWorkflowExecuteAdditionalData {
		return createAdditionalData(this.credentials, this.baseUrl, {
			executionId: undefined,
			...extra,
		});
	}

	/** A one-node workflow with the trigger, its node id and webhook id random as the editor makes them. */
	workflow(options: {
		type: string;
		parameters: INodeParameters;
		credentials?: INodeCredentials;
	}): TriggerWorkflow {
		return new TriggerWorkflow(this, options);
	}

	/** Waits until at least `count` recorded calls (past or future) match; returns them in order. */
	async waitForCalls(
		match: (call: WebhookCall) => boolean,
		count = 1,
		timeoutMs = 10_000,
	): Promise<WebhookCall[]> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.calls.filter(match);
			if (found.length >= count) return found;
			if (Date.now() > deadline) {
				throw new Error(
					`Expected ${count} matching webhook call(s) within ${timeoutMs} ms, saw ${found.length}`,
				);
			}
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}

	/** Calls whose request body carried this submission id. */
	callsFor(submissionId: string): WebhookCall[] {
		return this.calls.filter((call) => call.requestBody.includes(submissionId));
	}

	route(url: string, route: Route) {
		this.routes.set(new URL(url).pathname, route);
	}

	unroute(url: string) {
		this.routes.delete(new URL(url).pathname);
	}

	private record(call: WebhookCall) {
		this.calls.push(call);
		this.onCall?.(call);
	}

	private async handle(request: IncomingMessage, response: ServerResponse) {
		const url = new URL(request.url ?? '/', this.baseUrl);
		const raw = await readBody(request);
		const route = this.routes.get(url.pathname);
		if (!route || request.method !== 'POST') {
			// n8n: "The requested webhook ... is not registered."
			response.statusCode = 404;
			response.setHeader('content-type', 'application/json');
			response.end(
				JSON.stringify({ code: 404, message: 'The requested webhook is not registered.' }),
			);
			return;
		}
		const parsed = parseLikeN8n(raw, request.headers['content-type']);
		if ('unprocessable' in parsed) {
			response.statusCode = 422;
			response.end(JSON.stringify({ code: 422, message: 'Failed to parse request body' }));
			return;
		}
		const call: WebhookCall = {
			url: url.toString(),
			isTest: route.isTest,
			requestHeaders: { ...request.headers } as IDataObject,
			requestBody: raw.toString('utf8'),
			status: 0,
			responseBody: undefined,
		};
		const expressRequest = {
			method: request.method,
			url: request.url,
			path: url.pathname,
			headers: request.headers,
			query: Object.fromEntries(url.searchParams),
			params: {},
			body: parsed.body,
			rawBody: raw,
			contentType: request.headers['content-type']?.split(';')[0].trim(),
		};
		const expressResponse = new ExpressLikeResponse(response);
		const drop = route.trigger.takeDrop();
		try {
			call.result = await route.trigger.runWebhook(
				route.isTest,
				expressRequest as unknown as IDataObject,
				expressResponse,
			);
		} catch (error) {
			call.error = error as Error;
		}

		const result = call.result;
		if (result?.workflowData !== undefined && !result.noWebhookResponse) {
			// The workflow starts with these items (first output).
			call.items = result.workflowData[0] ?? [];
		}
		if (drop) {
			// The answer is lost on the way back (the node did its work): the sender sees a network error.
			call.status = -1;
			request.socket.destroy();
			this.record(call);
			return;
		}

		if (call.error) {
			// n8n answers a failed webhook function with 500 and the error's message.
			expressResponse.status(500).json({ code: 0, message: call.error.message });
		} else if (result?.noWebhookResponse) {
			// The node answered itself.
			if (!expressResponse.writableEnded) expressResponse.end();
		} else if (result?.workflowData === undefined) {
			expressResponse
				.status(200)
				.send(result?.webhookResponse ?? { message: 'Webhook call received' });
		} else {
			// responseMode onReceived: answered at once, the workflow runs on, with the description's
			// responseData as n8n evaluates it (webhook-on-received-response-extractor): "noData" is an
			// empty body, any other value (n8n's default is the text "firstEntryJson") is sent as it is.
			const responseData = route.trigger.webhookDescription.responseData ?? 'firstEntryJson';
			if (responseData === 'noData') expressResponse.status(200).end();
			else expressResponse.status(200).send(responseData);
		}
		call.status = expressResponse.statusCode;
		try {
			call.responseBody = expressResponse.body
				? JSON.parse(expressResponse.body)
				: expressResponse.body;
		} catch {
			call.responseBody = expressResponse.body;
		}
		this.record(call);
	}
}

/**
 * One workflow holding the trigger node: activate/deactivate, listen/stop, and its URLs. As in n8n,
 * the editor's test run works on its own copy of the workflow (TestWebhooks builds one from the
 * editor's data and carries the static data written by create over to the test request), so a test
 * registration never lands in the saved workflow's static data.
 */
export class TriggerWorkflow {
	readonly node: INode;
	/** The saved (active) workflow: production webhook, its static data. */
	readonly workflow: Workflow;
	/** The editor's copy while listening for a test event. */
	private testWorkflow: Workflow | undefined;
	private dropNext = false;
	private nodeTypeOverride: INodeType | undefined;

	constructor(
		private readonly harness: WebhookHarness,
		options: { type: string; parameters: INodeParameters; credentials?: INodeCredentials },
	) {
		this.node = {
			id: randomUUID(),
			name: 'Contact Form Trigger',
			type: options.type,
			typeVersion: 1,
			position: [0, 0],
			webhookId: randomUUID(),
			parameters: options.parameters,
			credentials: options.credentials,
		};
		this.workflow = this.build({});
	}

	private build(staticData: IDataObject): Workflow {
		return new Workflow({
			id: `workflow-${this.node.webhookId}`,
			name: 'Contact form workflow',
			nodes: [{ ...this.node, parameters: { ...this.node.parameters } }],
			connections: {},
			active: false,
			nodeTypes: this.harness.nodeTypes,
			staticData,
			settings: { executionOrder: 'v1' },
		});
	}

	private workflowFor(isTest: boolean): Workflow {
		if (!isTest) return this.workflow;
		// n8n builds the editor's test run from the workflow's nodes with empty static data
		// (TestWebhooks.toWorkflow): the saved static data is neither seen nor shared.
		this.testWorkflow ??= this.build({});
		return this.testWorkflow;
	}

	private nodeOf(workflow: Workflow): INode {
		return workflow.getNode(this.node.name) as INode;
	}

	get nodeType(): INodeType {
		return this.nodeTypeOverride ?? this.harness.nodeTypes.getByNameAndVersion(this.node.type);
	}

	/** From now on, run this instance of the node (e.g. one loaded fresh, as another n8n process would). */
	replaceNodeType(nodeType: INodeType) {
		this.nodeTypeOverride = nodeType;
	}

	/** The node's static data in the saved workflow, as n8n would store it. */
	get staticData(): IDataObject {
		return this.workflow.getStaticData('node', this.nodeOf(this.workflow));
	}

	/** The node's static data in the editor's test copy (while listening). */
	get testStaticData(): IDataObject | undefined {
		return this.testWorkflow?.getStaticData('node', this.nodeOf(this.testWorkflow));
	}

	get webhookDescription(): IWebhookDescription {
		const description = this.nodeType.description.webhooks?.[0];
		if (!description) throw new Error('The node has no webhook');
		return description;
	}

	private webhookData(
		isTest: boolean,
		additionalData: IWorkflowExecuteAdditionalData,
	): IWebhookData {
		const description = this.nodeType.description.webhooks?.[0];
		if (!description) throw new Error('The node has no webhook');
		return {
			httpMethod: description.httpMethod as IWebhookData['httpMethod'],
			node: this.node.name,
			path: '',
			webhookDescription: description,
			workflowId: this.workflow.id,
			workflowExecuteAdditionalData: additionalData,
			webhookId: this.node.webhookId,
			isTest,
		};
	}

	/** A HookContext exactly as n8n builds one for webhook registration. */
	hookContext(
		isTest: boolean,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): HookContext {
		const additionalData = this.harness.additionalData();
		const workflow = this.workflowFor(isTest);
		return new HookContext(
			workflow,
			this.nodeOf(workflow),
			additionalData,
			mode,
			activation,
			this.webhookData(isTest, additionalData),
		);
	}

	/** The URL n8n shows for the node (production or test). */
	url(isTest = false): string {
		const url = this.hookContext(isTest, 'internal', 'activate').getNodeWebhookUrl('default');
		if (!url) throw new Error('The node has no webhook URL');
		return url;
	}

	get productionUrl(): string {
		return this.url(false);
	}

	get testUrl(): string {
		return this.url(true);
	}

	private methods() {
		const methods = this.nodeType.webhookMethods?.default;
		if (!methods) throw new Error('The node has no webhookMethods.default');
		return methods;
	}

	async checkExists(isTest = false): Promise<boolean> {
		const context = isTest
			? this.hookContext(true, 'manual', 'manual')
			: this.hookContext(false, 'trigger', 'activate');
		return await this.methods().checkExists.call(context);
	}

	/** n8n's createWebhookIfNotExists: checkExists, then create when it answers false. Returns whether create ran. */
	private async createIfNotExists(context: HookContext): Promise<boolean> {
		const methods = this.methods();
		if (await methods.checkExists.call(context)) return false;
		await methods.create.call(context);
		return true;
	}

	/** Activating the workflow: registers the production webhook and opens its URL. */
	async activate(activation: WorkflowActivateMode = 'activate'): Promise<boolean> {
		const created = await this.createIfNotExists(this.hookContext(false, 'trigger', activation));
		this.harness.route(this.productionUrl, { trigger: this, isTest: false });
		return created;
	}

	/** Deactivating: closes the production URL and calls delete (mode internal, activation update, as n8n). */
	async deactivate(): Promise<boolean> {
		this.harness.unroute(this.productionUrl);
		return await this.methods().delete.call(this.hookContext(false, 'internal', 'update'));
	}

	/** The editor's "Execute step" on the trigger: registers the test webhook and opens the test URL. */
	async listen(): Promise<boolean> {
		const created = await this.createIfNotExists(this.hookContext(true, 'manual', 'manual'));
		this.harness.route(this.testUrl, { trigger: this, isTest: true });
		return created;
	}

	/** Listening ends (event received or timed out): n8n deletes the test webhook. */
	async stopListening(): Promise<boolean> {
		this.harness.unroute(this.testUrl);
		const deleted = await this.methods().delete.call(this.hookContext(true, 'internal', 'update'));
		// The editor's copy is gone with the test run.
		this.testWorkflow = undefined;
		return deleted;
	}

	/** The next request to this workflow is processed, but its answer never reaches the sender. */
	dropNextResponse() {
		this.dropNext = true;
	}

	takeDrop(): boolean {
		const drop = this.dropNext;
		this.dropNext = false;
		return drop;
	}

	/** Builds n8n-core's WebhookContext for one request and calls the node's webhook(). */
	async runWebhook(
		isTest: boolean,
		request: IDataObject,
		response: ExpressLikeResponse,
	): Promise<IWebhookResponseData> {
		const additionalData = this.harness.additionalData({
			httpRequest: request as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
			httpResponse: response as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
		});
		// n8n loads the workflow afresh for every request and never saves the static data webhook()
		// writes (WorkflowRunner persists a second copy whose change flag is reset): a copy per request.
		const workflow = this.build(
			JSON.parse(JSON.stringify(this.workflowFor(isTest).staticData)) as IDataObject,
		);
		const context = new WebhookContext(
			workflow,
			this.nodeOf(workflow),
			additionalData,
			isTest ? 'manual' : 'webhook',
			this.webhookData(isTest, additionalData),
			[],
			null,
		);
		const webhook = this.nodeType.webhook;
		if (!webhook) throw new Error('The node has no webhook()');
		return await webhook.call(context);
	}
}
