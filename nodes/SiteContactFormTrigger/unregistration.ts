/**
 * Taking the trigger's URL off the sites it registered with: on deactivation every record of the URL,
 * and on activation first the records it will not renew (registration.ts). Exactly the places
 * recorded, whatever the credential says by then (registeredSite.ts). A record leaves the static data
 * once its site no longer delivers here, or its tenant is gone from the service; one that could not
 * be taken off stays, and the error names its tenant and what to do.
 */
import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isMissingTenant } from '../shared/errors';
import type { TenantFailure } from './forEachTenant';
import { describeFailures, forEachTenant } from './forEachTenant';
import type { Registration } from './records';
import { forgetRegistrations, hasTenant, registrationsAt, storeRegistrationsAt } from './records';
import type { CredentialReach } from './registeredSite';
import { credentialReach, registeredSite, UNREACHABLE_REMEDY } from './registeredSite';
import { AUTOMATIC_SECRET_HEADER } from './secret';
import { servedTenants } from './served';
import type { TenantSite } from './siteSettings';
import {
	readWebhookSettings,
	removeTestWebhook,
	saveWebhookSettings,
	servedSite,
} from './siteSettings';

type RecordedRegistration = Registration & { tenantId: string };

/**
 * Takes the URL off one site: a test webhook is removed; a setting that still points here is cleared
 * (as is one the service cannot report). A setting someone changed in the meantime is left alone.
 */
export async function clearSite(
	ctx: IHookFunctions,
	site: TenantSite,
	registration: Registration,
): Promise<void> {
	if (registration.via === 'copies') {
		await removeTestWebhook(ctx, site, registration.url);
		return;
	}
	const current = await readWebhookSettings(ctx, site);
	if (current === undefined || current.url === registration.url) {
		await saveWebhookSettings(ctx, site, { url: null, headers: null });
	}
}

async function takeOff(
	ctx: IHookFunctions,
	reach: CredentialReach,
	registration: RecordedRegistration,
): Promise<void> {
	const site = await registeredSite(reach, registration);
	try {
		await clearSite(ctx, site, registration);
	} catch (error) {
		if (!isMissingTenant(error)) throw new NodeOperationError(ctx.getNode(), error as Error);
		ctx.logger.info(
			`Site Management Contact Form Trigger: tenant "${registration.tenantId}" no longer exists; its registration is gone with it`,
		);
	}
}

/**
 * Takes each recorded registration off its site and forgets those taken off; returns the failures
 * (those records stay).
 */
export async function takeOffRecorded(
	ctx: IHookFunctions,
	registrations: RecordedRegistration[],
): Promise<TenantFailure[]> {
	if (registrations.length === 0) return [];
	let reach: CredentialReach;
	try {
		reach = await credentialReach(ctx);
	} catch (error) {
		const reason = (error as Error).message;
		return registrations.map(({ tenantId }) => ({ tenantId, reason }));
	}
	const { done, failures } = await forEachTenant(
		registrations,
		(registration) => registration.tenantId,
		async (registration) => {
			await takeOff(ctx, reach, registration);
			return registration;
		},
	);
	forgetRegistrations(ctx, done);
	return failures;
}

/** The error of registrations that could not be taken off; `before` says what it stopped. */
export function takeOffError(
	ctx: IHookFunctions,
	failures: TenantFailure[],
	before = '',
): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The trigger could not take its URL off ${describeFailures(failures)}`,
		{ description: `${before}${UNREACHABLE_REMEDY}` },
	);
}

/**
 * Takes this node's URL off every tenant recorded for it. Without a record (static data lost) the
 * tenants served are asked, and each setting that still points here is cleared.
 */
export async function unregister(ctx: IHookFunctions, url: string): Promise<void> {
	const recorded = registrationsAt(ctx, url).filter(hasTenant);
	if (recorded.length === 0) {
		await clearUnrecorded(ctx, url);
		storeRegistrationsAt(ctx, url, []);
		return;
	}
	const failures = await takeOffRecorded(ctx, recorded);
	// Records from before tenants were recorded cannot be taken off anywhere: they go.
	storeRegistrationsAt(ctx, url, registrationsAt(ctx, url).filter(hasTenant));
	if (failures.length > 0) throw takeOffError(ctx, failures);
}

/** For static data lost: clears each tenant served whose setting still points at `url`. */
async function clearUnrecorded(ctx: IHookFunctions, url: string): Promise<void> {
	let tenants: string[];
	try {
		tenants = await servedTenants(ctx);
	} catch (error) {
		ctx.logger.warn(
			`Site Management Contact Form Trigger: no registration recorded and the tenants served cannot be told (${(error as Error).message}); nothing was cleared`,
		);
		return;
	}
	const test = ctx.getActivationMode() === 'manual';
	const { failures } = await forEachTenant(
		tenants,
		(tenantId) => tenantId,
		async (tenantId) =>
			await clearSite(ctx, servedSite(tenantId), {
				url,
				headerName: AUTOMATIC_SECRET_HEADER,
				secretHash: '',
				tenantId,
				registeredAt: '',
				test,
			}),
	);
	if (failures.length > 0) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The trigger could not take its URL off ${describeFailures(failures)}`,
		);
	}
}
