/**
 * The workflow of the fleet row: a manual trigger and, per run, a branch of its own: a source of
 * `{tenant}` items (its own tenants), then the route under test.
 *
 * - Package route: the Tenant node with one Managed Tenant credential (Tenant Scope Any), Tenant
 *   `{{ $json.tenant }}`: Setting > Update, then Notification > Send on the tenant it reports.
 * - HTTP Request route, as n8n users build it without the package: an HTTP Request node with the
 *   Admin credential issues a token per tenant, then two HTTP Request nodes send the two calls with
 *   that token in an Authorization header written as an expression.
 *
 * Execution order "v1" runs a branch to its end before the next, top to bottom by position, so the
 * runs follow one another in the order given (the caller checks that from the nodes' start times).
 */
import { randomUUID } from 'crypto';

import { HTTP_REQUEST_TYPE_VERSION, TENANT_TYPE_VERSION } from './peer-workflow';

export type FleetRoute = 'package' | 'httpRequest';

export interface FleetRun {
	/** Prefix of the run's node names and of its tenants' IDs (lowercase letters, digits and -). */
	key: string;
	route: FleetRoute;
	tenants: number;
}

/** What the routes write: one setting and one notification per tenant. */
export const FLEET_SETTING = { google_code: 'G-FLEET2026' };
export const FLEET_NOTIFICATION = {
	id: 'fleet-rollout',
	message: 'The analytics code was updated',
	status: 'success',
};

const TENANT_NODE_TYPE = 'n8n-nodes-site-management.siteTenant';
const ROW_HEIGHT = 200;

export const fleetTenant = (run: FleetRun, index: number) =>
	`${run.key}-${String(index).padStart(4, '0')}`;

/** The node names of a run's route, in the order they run. */
export function routeNodes(run: FleetRun): string[] {
	return run.route === 'package'
		? [`${run.key}: Settings Update`, `${run.key}: Notification Send`]
		: [`${run.key}: Issue Token`, `${run.key}: POST settings`, `${run.key}: POST notifications`];
}

function itemSource(run: FleetRun, y: number) {
	const tenants = `Array.from({ length: ${run.tenants} }, (_, i) => ({ tenant: '${run.key}-' + String(i).padStart(4, '0') }))`;
	return [
		{
			name: `${run.key}: tenants`,
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [300, y],
			parameters: { mode: 'raw', jsonOutput: `={{ { tenants: ${tenants} } }}`, options: {} },
		},
		{
			name: `${run.key}: split`,
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [500, y],
			parameters: { fieldToSplitOut: 'tenants', options: {} },
		},
	];
}

function packageNodes(run: FleetRun, credentialId: string, y: number) {
	const [update, notify] = routeNodes(run);
	const tenantNode = (name: string, x: number, tenant: string, parameters: object) => ({
		name,
		type: TENANT_NODE_TYPE,
		typeVersion: TENANT_TYPE_VERSION,
		position: [x, y],
		parameters: {
			authentication: 'managedTenant',
			tenant: { __rl: true, mode: 'id', value: tenant },
			...parameters,
		},
		credentials: { siteManagedTenantApi: { id: credentialId, name: credentialId } },
	});
	return [
		tenantNode(update, 700, '={{ $json.tenant }}', {
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: FLEET_SETTING.google_code },
		}),
		// Every output item of the Tenant node says its tenant (tenant_id).
		tenantNode(notify, 900, '={{ $json.tenant_id }}', {
			resource: 'notification',
			operation: 'send',
			notificationId: FLEET_NOTIFICATION.id,
			message: FLEET_NOTIFICATION.message,
			status: FLEET_NOTIFICATION.status,
		}),
	];
}

function httpRequestNodes(run: FleetRun, adminCredentialId: string, baseUrl: string, y: number) {
	const [issue, settings, notify] = routeNodes(run);
	const jsonBody = (fields: Record<string, string>) => ({
		sendBody: true,
		bodyParameters: {
			parameters: Object.entries(fields).map(([name, value]) => ({ name, value })),
		},
	});
	const withToken = (name: string, x: number, path: string, token: string, body: object) => ({
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: HTTP_REQUEST_TYPE_VERSION,
		position: [x, y],
		parameters: {
			method: 'POST',
			url: `${baseUrl}${path}`,
			sendHeaders: true,
			headerParameters: {
				parameters: [
					{ name: 'Authorization', value: `=Bearer {{ ${token} }}` },
					{ name: 'Accept', value: 'application/json' },
				],
			},
			...body,
			options: {},
		},
	});
	return [
		{
			name: issue,
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: HTTP_REQUEST_TYPE_VERSION,
			position: [700, y],
			parameters: {
				method: 'POST',
				url: `${baseUrl}/api/tenant/token`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'siteAdminApi',
				// The token lives as long as the package's (its credential's default Token Lifetime).
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={ "id": "{{ $json.tenant }}", "expires_in": 900 }',
				options: {},
			},
			credentials: { siteAdminApi: { id: adminCredentialId, name: adminCredentialId } },
		},
		withToken(settings, 900, '/api/settings', '$json.token', jsonBody(FLEET_SETTING)),
		// The settings answer holds no token: the token comes from the item the token node paired.
		withToken(
			notify,
			1100,
			'/api/notifications',
			`$('${issue}').item.json.token`,
			jsonBody(FLEET_NOTIFICATION),
		),
	];
}

/** The workflow: one branch per run, each below the one before, in the order given. */
export function fleetWorkflow(options: {
	id: string;
	baseUrl: string;
	managedCredentialId: string;
	adminCredentialId: string;
	runs: FleetRun[];
}) {
	const link = (node: string) => ({ node, type: 'main', index: 0 });
	const nodes: object[] = [
		{
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
	];
	const connections: Record<string, { main: Array<Array<ReturnType<typeof link>>> }> = {
		Start: { main: [options.runs.map((run) => link(`${run.key}: tenants`))] },
	};
	options.runs.forEach((run, i) => {
		const y = i * ROW_HEIGHT;
		nodes.push(
			...itemSource(run, y),
			...(run.route === 'package'
				? packageNodes(run, options.managedCredentialId, y)
				: httpRequestNodes(run, options.adminCredentialId, options.baseUrl, y)),
		);
		const chain = [`${run.key}: tenants`, `${run.key}: split`, ...routeNodes(run)];
		chain.slice(1).forEach((name, j) => (connections[chain[j]] = { main: [[link(name)]] }));
	});
	return {
		id: options.id,
		name: `Bench: a fleet of tenants, Tenant node vs HTTP Request nodes (${options.id})`,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: nodes.map((node) => ({ id: randomUUID(), ...node })),
		connections,
	};
}
