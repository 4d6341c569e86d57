/**
 * Which tenants an automatic registration serves. A Tenant Token serves its own tenant; a Managed
 * Tenant credential serves its Tenant ID (the default), a list of tenant IDs, or every tenant it
 * allows. Every tenant passes the one scope check (shared/target.ts) before anything is registered.
 */
import type { ICredentialDataDecryptedObject, IHookFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MANAGED_TENANT } from '../shared/authentication';
import { managedTenantProblem, tenantCredentialType } from '../shared/target';
import { tenantsInScope } from '../shared/tenantList';
import { credentialScope, describeScope, SCOPE_ANY, SCOPE_LISTED } from '../shared/tenantScope';
import { registrationTenant } from './tenant';

type TenantsServed = 'credential' | 'list' | 'allowed';

/** One registration per tenant at activation: a sane ceiling for one node and one activation. */
const MAX_SERVED_TENANTS = 500;

export const tenantsServedProperties: INodeProperties[] = [
	{
		displayName: 'Tenants',
		name: 'tenantsServed',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: "The Credential's Tenant",
				value: 'credential',
				description: 'The tenant in the Tenant ID of the Managed Tenant credential',
			},
			{
				name: 'Listed Tenants',
				value: 'list',
				description: 'The tenants named in Tenant IDs (each within the credential scope)',
			},
			{
				name: 'Every Tenant the Credential Allows',
				value: 'allowed',
				description:
					'Its Allowed Tenants, or, for patterns and Any Tenant, every tenant the service lists that the scope allows (listing tenants is an extension of the reference server)',
			},
		],
		default: 'credential',
		description: "Which tenants' sites send their contact form to this trigger",
		displayOptions: { show: { registration: ['automatic'], authentication: [MANAGED_TENANT] } },
	},
	{
		displayName: 'Tenant IDs',
		name: 'tenantIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'acme, harbor-yoga',
		description: `Tenant IDs separated by commas or new lines, or an expression giving a list (at most ${MAX_SERVED_TENANTS})`,
		displayOptions: {
			show: {
				registration: ['automatic'],
				authentication: [MANAGED_TENANT],
				tenantsServed: ['list'],
			},
		},
	},
];

/** The Tenant IDs parameter as a list: a string split at commas and new lines, or an array. */
function listedTenantIds(ctx: IHookFunctions): string[] {
	const value = ctx.getNodeParameter('tenantIds', '') as unknown;
	const entries = Array.isArray(value) ? value.map(String) : String(value ?? '').split(/[,\n]/);
	return [...new Set(entries.map((entry) => entry.trim()).filter((entry) => entry !== ''))];
}

/** Fails naming every tenant the credential may not serve (not a tenant ID, outside its scope). */
function assertServable(
	ctx: IHookFunctions,
	credentials: ICredentialDataDecryptedObject,
	tenants: string[],
): void {
	const problems = tenants.flatMap((tenantId) => {
		const problem = managedTenantProblem(credentials, tenantId);
		return problem ? [problem.message] : [];
	});
	if (problems.length === 0) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`The trigger cannot serve ${problems.length === 1 ? 'a tenant' : `${problems.length} tenants`}: ${problems.join('; ')}`,
		{
			description:
				"Nothing was registered. Correct Tenant IDs, or edit the credential's Tenant Scope to allow them.",
		},
	);
}

/** Every tenant the credential allows: its plain Allowed Tenants, else what the service lists. */
async function allowedTenants(
	ctx: IHookFunctions,
	credentials: ICredentialDataDecryptedObject,
): Promise<string[]> {
	const scope = credentialScope(credentials);
	if (scope.kind === SCOPE_LISTED && !scope.patterns.some((entry) => entry.includes('*'))) {
		return [...new Set(scope.patterns)];
	}
	if (scope.kind !== SCOPE_LISTED && scope.kind !== SCOPE_ANY) {
		return scope.tenantId ? [scope.tenantId] : [];
	}
	return await tenantsInScope(ctx, credentials, {
		max: MAX_SERVED_TENANTS,
		tooMany: `The credential allows more than ${MAX_SERVED_TENANTS} tenants of this service; one trigger serves at most ${MAX_SERVED_TENANTS}`,
		instead: 'list the tenants in Tenant IDs (Tenants: Listed Tenants)',
	});
}

/** The tenants this node registers with, in order, each checked; never empty. */
export async function servedTenants(ctx: IHookFunctions): Promise<string[]> {
	const selection = ctx.getNodeParameter('tenantsServed', 'credential') as TenantsServed;
	if (tenantCredentialType(ctx) !== 'siteManagedTenantApi' || selection === 'credential') {
		return [await registrationTenant(ctx)];
	}
	const credentials =
		await ctx.getCredentials<ICredentialDataDecryptedObject>('siteManagedTenantApi');
	const tenants =
		selection === 'list' ? listedTenantIds(ctx) : await allowedTenants(ctx, credentials);
	if (tenants.length === 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			selection === 'list'
				? 'Tenant IDs is empty: name at least one tenant'
				: `The credential allows no tenant that the service has: it allows ${describeScope(credentialScope(credentials))}`,
		);
	}
	if (tenants.length > MAX_SERVED_TENANTS) {
		throw new NodeOperationError(
			ctx.getNode(),
			`${selection === 'list' ? 'Tenant IDs names' : 'The credential allows'} ${tenants.length} tenants: one trigger serves at most ${MAX_SERVED_TENANTS}`,
			{ description: 'Split the tenants between several Contact Form Triggers.' },
		);
	}
	assertServable(ctx, credentials, tenants);
	return tenants;
}
