/**
 * Drives a polling trigger the way n8n does, with n8n-core's own PollContext.
 *
 * - `activate()` is n8n's activation: one poll at once, then the workflow's static data saved.
 * - `poll()` is one scheduled poll (mode "trigger"). As n8n 2.41 does without durable cursors, the
 *   static data is saved when the poll emits items; a poll that returns nothing or throws leaves the
 *   saved copy as it was (the in-memory workflow keeps what the poll wrote, as n8n's does).
 * - `restart()` is an n8n restart: a new Workflow from the saved static data, a fresh node instance,
 *   and activation ("init") polls once.
 * - `fetchTestEvent()` is the editor's Fetch Test Event: mode "manual" on a copy of the static data.
 */
import { randomUUID } from 'crypto';
import { PollContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { TestNodeTypes, type WorkflowRunner } from './workflow-runner';

type PollResult = { items: INodeExecutionData[] | null; error?: Error };

export class PollTriggerWorkflow {
	readonly node: INode;
	private workflow: Workflow;
	/** The static data as n8n last stored it in its database. */
	saved: IDataObject = {};
	/** Items of every poll that emitted, in order. */
	readonly emitted: INodeExecutionData[][] = [];

	constructor(
		private readonly runner: WorkflowRunner,
		private readonly createNodeType: () => INodeType,
		options: { type: string; parameters: INodeParameters; credentials: INodeCredentials },
	) {
		this.node = {
			id: randomUUID(),
			name: 'Page Trigger',
			type: options.type,
			typeVersion: 1,
			position: [0, 0],
			parameters: options.parameters,
			credentials: options.credentials,
		};
		this.workflow = this.build({});
	}

	private build(staticData: IDataObject): Workflow {
		const nodeType = this.createNodeType();
		return new Workflow({
			id: `workflow-${this.node.id}`,
			name: 'Page trigger workflow',
			nodes: [{ ...this.node, parameters: { ...this.node.parameters } }],
			connections: {},
			active: true,
			nodeTypes: new TestNodeTypes({ [this.node.type]: nodeType }),
			staticData: JSON.parse(JSON.stringify(staticData)) as IDataObject,
			settings: { executionOrder: 'v1' },
		});
	}

	/** The node's static data in the running workflow. */
	get staticData(): IDataObject {
		return this.workflow.getStaticData('node', this.workflow.getNode(this.node.name) as INode);
	}

	private save(workflow: Workflow) {
		this.saved = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
	}

	private async run(
		workflow: Workflow,
		mode: WorkflowExecuteMode,
		activation: WorkflowActivateMode,
	): Promise<PollResult> {
		const node = workflow.getNode(this.node.name) as INode;
		const additionalData = this.runner.createAdditionalData(`poll-${randomUUID()}`);
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			mode,
			activation,
			() => {},
			() => {},
		);
		const nodeType = workflow.nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		try {
			const result = await (nodeType.poll as NonNullable<INodeType['poll']>).call(context);
			const items = result?.[0] ?? null;
			if (items && mode !== 'manual') {
				this.emitted.push(items);
				this.save(workflow);
			}
			return { items };
		} catch (error) {
			return { items: null, error: error as Error };
		}
	}

	async activate(activation: WorkflowActivateMode = 'activate'): Promise<PollResult> {
		const result = await this.run(this.workflow, 'trigger', activation);
		if (!result.error) this.save(this.workflow);
		return result;
	}

	async poll(): Promise<PollResult> {
		return await this.run(this.workflow, 'trigger', 'activate');
	}

	async restart(): Promise<PollResult> {
		this.workflow = this.build(this.saved);
		return await this.activate('init');
	}

	async fetchTestEvent(): Promise<PollResult> {
		const copy = this.build(this.workflow.staticData as IDataObject);
		return await this.run(copy, 'manual', 'manual');
	}
}
