/**
 * A WorkflowRunner (test/harness) with the Tenant node and its credential types: the nodes run in
 * n8n-core's own WorkflowExecute, as in the tests. Import ../env first (it sets n8n's environment).
 */
import type { INodeCredentials } from 'n8n-workflow';

import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';
import { SiteTenantApi } from '../../credentials/SiteTenantApi.credentials';
import { SiteTenant } from '../../nodes/SiteTenant/SiteTenant.node';
import { WorkflowRunner } from '../../test/harness/workflow-runner';
import { HttpBaseline } from './http-baseline.node';

export function createRunner(): WorkflowRunner {
	return new WorkflowRunner(
		{ siteTenant: new SiteTenant(), benchHttpBaseline: new HttpBaseline() },
		[new SiteTenantApi(), new SiteManagedTenantApi()],
	);
}

export function tenantCredential(
	runner: WorkflowRunner,
	baseUrl: string,
	token: string,
): INodeCredentials {
	return runner.credentials.add('siteTenantApi', { baseUrl, token });
}
