import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { isoIn } from '../clock';
import { sha256Hex } from '../plugins/auth';
import { conflict, notFound } from '../errors/api-error';
import type { TenantRepository, TenantRow } from '../db/tenants';
import { asBoolean, pagination, paginationMetaFor } from '../schemas/common';
import {
	createTenantBody,
	issueTokenBody,
	issueTokenResponses,
	deleteTenantBody,
	listTenantsQuery,
	listTenantsResponses,
	tenantOkResponses as okResponses,
	updateTenantBody,
} from '../schemas/tenants';

/** The tenant with this id; 404 not_found when there is none. */
export function existingTenant(tenants: TenantRepository, id: string): TenantRow {
	const tenant = tenants.findById(id);
	if (!tenant) throw notFound(`Tenant "${id}" not found.`);
	return tenant;
}

/** Recognisable in secret scanners and logs; the 32 random bytes after it are the secret. */
const TENANT_TOKEN_PREFIX = 'stt_';

/**
 * Central surface: tenant lifecycle and tenant tokens. A rename keeps the data (tables reference the
 * internal pk), not the tokens.
 */
const tenantRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { store, assets } = app.site;

	// An extension: not there with --no-extensions (plugins/extensions.ts).
	if (app.site.config.extensions)
		app.get(
			'/api/tenants',
			{
				onRequest: app.requireAdmin,
				schema: {
					operationId: 'listTenants',
					summary: 'List tenants, ordered by id',
					description:
						"An extension of the reference server: the Tenant node's Tenant parameter lists tenants with it (From List); By ID works without it.",
					'x-extension': true,
					querystring: listTenantsQuery,
					response: listTenantsResponses,
				},
			},
			async (request) => {
				const { page, perPage, offset } = pagination(request.query);
				const { tenants, total } = store.tenants.list(request.query.search, perPage, offset);
				return { data: tenants, meta: paginationMetaFor(page, perPage, total) };
			},
		);

	app.post(
		'/api/tenant',
		{
			onRequest: app.requireAdmin,
			schema: {
				operationId: 'createTenant',
				summary: 'Create a tenant',
				body: createTenantBody,
				response: okResponses,
			},
		},
		async (request) => {
			const { id, fqdn } = request.body;
			if (!store.tenants.create(id, fqdn ?? null))
				throw conflict(`A tenant with id "${id}" already exists.`);
			return { message: 'Tenant created successfully.' };
		},
	);

	app.put(
		'/api/tenant',
		{
			onRequest: app.requireAdmin,
			schema: {
				operationId: 'renameTenant',
				summary: 'Update a tenant: rename it (old_id → id) and/or change its fqdn',
				description:
					'old_id names the tenant to change; without it, id does (and only fqdn changes). fqdn absent keeps the current one, null clears it. Pages, settings, assets, variables and notifications follow a rename; tokens issued before it stop working (401), so that no client reaches the renamed tenant, or a new tenant of the old name, by a token issued for the old name.',
				body: updateTenantBody,
				response: okResponses,
			},
		},
		async (request) => {
			const { id, fqdn } = request.body;
			const oldId = request.body.old_id ?? id;
			const tenant = existingTenant(store.tenants, oldId);
			if (id !== oldId && store.tenants.findById(id))
				throw conflict(`A tenant with id "${id}" already exists.`);
			store.tenants.update(tenant.pk, id, fqdn === undefined ? tenant.fqdn : fqdn);
			return { message: 'Tenant updated successfully.' };
		},
	);

	app.delete(
		'/api/tenant',
		{
			onRequest: app.requireAdmin,
			schema: {
				operationId: 'deleteTenant',
				summary: 'Delete a tenant with all its data; its tokens stop working',
				body: deleteTenantBody,
				response: okResponses,
			},
		},
		async (request) => {
			const tenant = existingTenant(store.tenants, request.body.id);
			store.tenants.remove(tenant.pk);
			// Rows are gone (cascade) and committed; the files follow. A failure here leaves only orphan files.
			await assets
				.removeTenant(tenant.pk)
				.catch((err: unknown) => request.log.warn({ err }, 'could not remove tenant asset files'));
			return { message: 'Tenant deleted successfully.' };
		},
	);

	app.post(
		'/api/tenant/token',
		{
			onRequest: app.requireAdmin,
			// A replay would need the token stored in plain text; retries issue a fresh token instead.
			config: { idempotency: false },
			schema: {
				operationId: 'createTenantToken',
				summary: 'Issue a tenant token (shown once; stored only as a SHA-256 hash)',
				description: 'Rotation: issue a new token with revoke_previous: true.',
				body: issueTokenBody,
				response: issueTokenResponses,
			},
		},
		async (request) => {
			const { id, expires_in: expiresIn } = request.body;
			const tenant = existingTenant(store.tenants, id);
			const token = TENANT_TOKEN_PREFIX + randomBytes(32).toString('base64url');
			const expiresAt = expiresIn === undefined ? null : isoIn(expiresIn * 1000);
			store.tokens.issue(
				tenant.pk,
				sha256Hex(token),
				expiresAt,
				asBoolean(request.body.revoke_previous, false),
			);
			return { token, token_type: 'Bearer', tenant_id: tenant.id, expires_at: expiresAt };
		},
	);
};

export default tenantRoutes;
