/**
 * Calls a node's list search (resource locator, From List) the way n8n's editor backend does
 * (packages/cli DynamicNodeParametersService.getResourceLocatorResults): n8n-core's LoadOptionsContext
 * on a one-node workflow holding the node's current parameters and credential.
 */
import { LoadOptionsContext } from 'n8n-core';
import type { INode, INodeCredentials, INodeListSearchResult, INodeParameters } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { WorkflowRunner } from './workflow-runner';

interface ListSearchOptions {
	type: string;
	method: string;
	parameters: INodeParameters;
	credentials: INodeCredentials;
	filter?: string;
	paginationToken?: string;
}

export async function listSearch(
	runner: WorkflowRunner,
	options: ListSearchOptions,
): Promise<INodeListSearchResult> {
	const node: INode = {
		id: 'node',
		name: 'Node',
		type: options.type,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: options.credentials,
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: runner.nodeTypes,
	});
	const nodeType = runner.nodeTypes.getByNameAndVersion(options.type);
	const method = nodeType.methods?.listSearch?.[options.method];
	if (!method) throw new Error(`${options.type} has no list search ${options.method}`);
	// The editor sends the node's parameters as they are now, defaults included
	// (getCurrentNodeParameter reads them; n8n-core checks the credential's displayOptions against
	// them): the Workflow filled the node's defaults in.
	const additionalData = runner.createAdditionalData('list-search');
	additionalData.currentNodeParameters = node.parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	return await method.call(context, options.filter, options.paginationToken);
}
