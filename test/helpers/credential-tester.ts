/**
 * Runs a credential type's `test` request the way n8n's CredentialsTester does: a throwaway node
 * whose only property routes the test request, run declaratively (RoutingNode) with the credential,
 * then the outcome judged by the same rules (responseCode rules first, any other non-2xx an error,
 * a network failure its code, otherwise success).
 */
import type { ICredentialType, INodeCredentials, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import type { WorkflowRunner } from '../harness/workflow-runner';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/** The node type n8n builds for testing a credential: a no-op whose one property routes the request. */
export function credentialProbe(credential: ICredentialType): INodeType {
	if (!credential.test) throw new Error(`${credential.name} has no test request`);
	return {
		description: {
			displayName: `Probe ${credential.name}`,
			name: `probe-${credential.name}`,
			group: ['transform'],
			version: 1,
			description: 'Credential test probe',
			defaults: { name: 'Temp-Node' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credential.name, required: true }],
			properties: [
				{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request: credential.test.request } },
			],
		},
	};
}

interface ErrorWithCause {
	message?: string;
	cause?: { response?: { status?: number; statusText?: string }; code?: string };
}

export async function testCredential(
	runner: WorkflowRunner,
	credential: ICredentialType,
	reference: INodeCredentials,
): Promise<CredentialTestResult> {
	const result = await runner.runNode({ type: `probe-${credential.name}`, parameters: {}, credentials: reference });
	const error = result.error as ErrorWithCause | undefined;
	if (!error) return { status: 'OK', message: 'Connection successful!' };

	const response = error.cause?.response;
	if (response) {
		const statusCode = Number(response.status);
		for (const rule of credential.test?.rules ?? []) {
			if (rule.type === 'responseCode' && rule.properties.value === statusCode) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
		if (statusCode < 199 || statusCode > 299) {
			return { status: 'Error', message: response.statusText || `Received HTTP status code: ${statusCode}` };
		}
	} else if (error.cause?.code) {
		return { status: 'Error', message: error.cause.code };
	}
	return { status: 'Error', message: String(error.message) };
}
