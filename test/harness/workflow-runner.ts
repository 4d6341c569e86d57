import { Container } from '@n8n/di';
import { BinaryDataService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import type {
	ICredentialType,
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials-helper';
import { ItemSource, sourceRegistry, type SourceItem } from './item-source.node';

const SOURCE_TYPE = 'test.itemSource';

let binaryDataReady: Promise<void> | undefined;
/** n8n keeps binaries on disk by default (filesystem mode); the service needs one init per process. */
async function initBinaryData() {
	binaryDataReady ??= Container.get(BinaryDataService).init();
	await binaryDataReady;
}

/** The node types a test workflow may use, by name (any version). */
export class TestNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType>) {}

	getByName(nodeType: string): INodeType {
		return this.getByNameAndVersion(nodeType);
	}

	getByNameAndVersion(nodeType: string): INodeType {
		const type = this.types[nodeType];
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return type;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

export interface NodeRunResult {
	/** Items of the node's first output, in order. */
	items: INodeExecutionData[];
	/** All outputs of the node (for nodes with more than one). */
	outputs: INodeExecutionData[][];
	/** The error that stopped the node, when it did not continue on fail. */
	error?: Error & { description?: string; httpCode?: string; context?: IDataObject };
	run: IRun;
}

export interface RunNodeOptions {
	/** Node type name as registered with the harness, e.g. `siteTenant`. */
	type: string;
	parameters: INode['parameters'];
	credentials?: INodeCredentials;
	input?: SourceItem[];
	/** The node's version; 1 unless given (version 1 workflows are what most tests exercise). */
	typeVersion?: number;
	/** Shorthand for onError 'continueRegularOutput'. */
	continueOnFail?: boolean;
	/** The node's On Error setting; `outputs[1]` is the error output under 'continueErrorOutput'. */
	onError?: INode['onError'];
}

/**
 * Runs real workflows through n8n-core's WorkflowExecute, with our node types and an in-memory
 * credentials helper, and hands back what the node under test produced.
 */
export class WorkflowRunner {
	readonly nodeTypes: TestNodeTypes;
	readonly credentials: TestCredentialsHelper;
	private runCount = 0;

	constructor(nodes: Record<string, INodeType>, credentialTypes: ICredentialType[]) {
		this.nodeTypes = new TestNodeTypes({ ...nodes, [SOURCE_TYPE]: new ItemSource() });
		this.credentials = new TestCredentialsHelper(credentialTypes);
	}

	/** Runs `source -> node` once and returns the node's output. */
	async runNode(options: RunNodeOptions): Promise<NodeRunResult> {
		const key = `run-${++this.runCount}`;
		sourceRegistry.set(key, options.input ?? [{ json: {} }]);
		const nodeName = 'Node Under Test';
		const nodes: INode[] = [
			{
				id: 'source',
				name: 'Source',
				type: SOURCE_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { key },
			},
			{
				id: 'subject',
				name: nodeName,
				type: options.type,
				typeVersion: options.typeVersion ?? 1,
				position: [200, 0],
				parameters: options.parameters,
				credentials: options.credentials,
				...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
				...(options.onError ? { onError: options.onError } : {}),
			},
		];
		const connections = {
			Source: { main: [[{ node: nodeName, type: 'main' as const, index: 0 }]] },
		};
		try {
			const run = await this.runWorkflow(nodes, connections);
			const taskData = run.data.resultData.runData[nodeName]?.[0];
			const outputs = (taskData?.data?.main ?? []).map((output) => output ?? []);
			const error = (taskData?.error ?? run.data.resultData.error) as NodeRunResult['error'];
			return { items: outputs[0] ?? [], outputs, error, run };
		} finally {
			sourceRegistry.delete(key);
		}
	}

	/** Runs a whole workflow (nodes + connections) and resolves when n8n reports it finished. */
	async runWorkflow(nodes: INode[], connections: IWorkflowBase['connections']): Promise<IRun> {
		await initBinaryData();
		const workflowData: IWorkflowBase = {
			id: 'test-workflow',
			name: 'Test workflow',
			active: false,
			isArchived: false,
			nodes,
			connections,
			settings: { executionOrder: 'v1' },
			createdAt: new Date(),
			updatedAt: new Date(),
		} as IWorkflowBase;
		const workflow = new Workflow({
			id: workflowData.id,
			name: workflowData.name,
			nodes,
			connections,
			active: false,
			nodeTypes: this.nodeTypes,
			settings: workflowData.settings,
		});

		let resolveFinished!: (run: IRun) => void;
		const finished = new Promise<IRun>((resolve) => (resolveFinished = resolve));
		const executionId = `execution-${this.runCount}`;
		const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
		hooks.addHandler('workflowExecuteAfter', (fullRunData) => resolveFinished(fullRunData));

		const additionalData = this.createAdditionalData(executionId, hooks);

		const workflowExecute = new WorkflowExecute(additionalData, 'manual');
		await workflowExecute.run({ workflow, startNode: workflow.getNode('Source') ?? undefined });
		return await finished;
	}

	/** The additional data n8n hands to a run (credentials helper, URLs, hooks); also for a bare RoutingNode. */
	createAdditionalData(
		executionId: string,
		hooks?: ExecutionLifecycleHooks,
	): IWorkflowExecuteAdditionalData {
		return createAdditionalData(this.credentials, 'http://127.0.0.1:5678', { hooks, executionId });
	}
}

/**
 * additionalData as n8n builds it, with every instance URL below `baseUrl`; `extra` adds or overrides
 * fields (execution id, hooks, the webhook's request and response).
 */
export function createAdditionalData(
	credentialsHelper: TestCredentialsHelper,
	baseUrl: string,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${baseUrl}/rest`,
		instanceBaseUrl: `${baseUrl}/`,
		webhookBaseUrl: `${baseUrl}/webhook`,
		webhookWaitingBaseUrl: `${baseUrl}/webhook-waiting`,
		webhookTestBaseUrl: `${baseUrl}/webhook-test`,
		formBaseUrl: `${baseUrl}/form`,
		formWaitingBaseUrl: `${baseUrl}/form-waiting`,
		formTestBaseUrl: `${baseUrl}/form-test`,
		mcpBaseUrl: `${baseUrl}/mcp`,
		mcpTestBaseUrl: `${baseUrl}/mcp-test`,
		variables: {},
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not part of these tests');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Task runners are not part of these tests');
		},
		...extra,
	} as unknown as IWorkflowExecuteAdditionalData;
}
