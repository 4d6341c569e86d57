/**
 * Runs a credential type's `test` request the way n8n's CredentialsTester (packages/cli) does: a
 * throwaway node type whose one property routes the test request, run by n8n-core's RoutingNode with
 * the decrypted credential, and the outcome judged by the same rules: a `responseCode` rule matching
 * the failed status gives its message, any other non-2xx the status text, a network failure its code,
 * anything else the error message; with no error, the first `responseSuccessBody` rule whose `key`
 * in the answer's body equals its `value` gives its message (a dotted path, read as n8n's lodash `get` does), else success.
 */
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialType,
	IExecuteData,
	INode,
	INodeCredentials,
	INodeType,
	IRunExecutionData,
	ITaskDataConnections,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { SiteAdminApi } from '../../credentials/SiteAdminApi.credentials';
import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';
import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import type { WorkflowRunner } from './workflow-runner';

interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** Name under which a probe for this credential type is registered with the runner. */
const probeName = (credential: ICredentialType) => `probe-${credential.name}`;

/** The node type n8n builds for testing a credential: a no-op whose one property routes the request. */
function credentialProbe(credential: ICredentialType): INodeType {
	if (!credential.test) throw new Error(`${credential.name} has no test request`);
	return {
		description: {
			displayName: `Probe ${credential.name}`,
			name: probeName(credential),
			group: ['transform'],
			version: 1,
			description: 'Credential test probe',
			defaults: { name: 'Temp-Node' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credential.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: credential.test.request },
				},
			],
		},
	};
}

/** The package's credential types with a test, and the probes n8n would build for them. */
export function credentialTestTypes() {
	const types = {
		admin: new SiteAdminApi(),
		tenant: new SiteTenantApi(),
		managed: new SiteManagedTenantApi(),
	};
	const probes = Object.fromEntries(
		Object.values(types).map((type) => [probeName(type), credentialProbe(type)]),
	);
	return { ...types, probes };
}

interface ErrorWithCause {
	message?: string;
	cause?: { response?: { status?: number; statusText?: string }; code?: string };
}

let testCount = 0;

/** `a.b.c` of a value, undefined where the path ends early (lodash `get` for dotted keys). */
function get(value: unknown, key: string): unknown {
	let current = value;
	for (const part of key.split('.')) {
		if (current === null || current === undefined || typeof current !== 'object') return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}

export async function testCredential(
	runner: WorkflowRunner,
	credential: ICredentialType,
	reference: INodeCredentials,
): Promise<CredentialTestResult> {
	const probe = runner.nodeTypes.getByNameAndVersion(probeName(credential));
	const details = reference[credential.name];
	if (!details?.id) throw new Error(`no ${credential.name} credential in the reference`);
	const data = await runner.credentials.getDecrypted(undefined, details, credential.name);

	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: probe.description.name,
		typeVersion: 1,
		position: [0, 0],
		credentials: { [credential.name]: { id: details.id, name: details.name } },
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: runner.nodeTypes,
	});
	const inputData: ITaskDataConnections = { main: [[{ json: {} }]] };
	const runExecutionData = { resultData: { runData: {} } } as unknown as IRunExecutionData;
	const executeData: IExecuteData = { node, data: {}, source: null };
	const additionalData = runner.createAdditionalData(`credential-test-${++testCount}`);
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		inputData,
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, probe, {
		id: details.id,
		name: details.name ?? '',
		type: credential.name,
		data,
	});

	let response: Awaited<ReturnType<RoutingNode['runNode']>>;
	try {
		response = await routingNode.runNode();
	} catch (thrown) {
		const error = thrown as ErrorWithCause;
		const response = error.cause?.response;
		if (response) {
			const statusCode = Number(response.status);
			for (const rule of credential.test?.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === statusCode) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (statusCode < 199 || statusCode > 299) {
				return {
					status: 'Error',
					message: response.statusText || `Received HTTP status code: ${statusCode}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}
	for (const rule of credential.test?.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const body = response?.[0]?.[0]?.json;
			if (get(body, rule.properties.key) === rule.properties.value)
				return { status: 'Error', message: rule.properties.message };
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
