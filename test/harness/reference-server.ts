import type { AxiosInstance } from 'axios';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

import { startServer, type RunningServer, type ServerOptions } from '../../reference-server/src';
// The server's own test helpers build clients and tenants; these tests use the same ones.
import { client, createTenant } from '../../reference-server/test/helpers';

export interface TestSite {
	server: RunningServer;
	url: string;
	adminToken: string;
	dataDir: string;
	/** Talks to the central surface with the admin token; never throws on a status. */
	admin: AxiosInstance;
	close(): Promise<void>;
	/** Creates a tenant, issues it a token and returns a client for its surface. */
	createTenant(id: string, options?: { expiresIn?: number }): Promise<TestTenant>;
	/** Restarts the server on the same data directory with other options (e.g. fault rates). */
	restart(options?: Partial<ServerOptions>): Promise<void>;
	/** How many tokens the tenant was ever issued (each mint of a managed credential is one). */
	tokensIssued(tenantId: string): number;
}

export interface TestTenant {
	id: string;
	token: string;
	client: AxiosInstance;
}

/** One reference server per test file, on an ephemeral port and a fresh data directory. */
export async function startTestSite(options: Partial<ServerOptions> = {}): Promise<TestSite> {
	const dataDir = mkdtempSync(join(tmpdir(), 'site-ref-'));
	const adminToken = `admin-${Math.random().toString(36).slice(2)}-${Date.now()}`;
	// Reliability tests submit hundreds of forms from one address: no form rate limit unless asked for.
	const base: Partial<ServerOptions> = {
		port: 0,
		dataDir,
		adminToken,
		enableVariables: true,
		formRatePerAddress: 0,
		formRatePerTenant: 0,
		// Webhook receivers (n8n, test receivers) listen on loopback, refused by default.
		webhookAllow: 'loopback',
		...options,
	};
	let server = await startServer(base);

	const site: TestSite = {
		get server() {
			return server;
		},
		get url() {
			return server.url;
		},
		adminToken,
		dataDir,
		get admin() {
			return client(server.url, adminToken);
		},
		async close() {
			await server.close();
			rmSync(dataDir, { recursive: true, force: true });
		},
		async createTenant(id, { expiresIn } = {}) {
			const tenant = await createTenant(
				site,
				id,
				undefined,
				expiresIn ? { expires_in: expiresIn } : {},
			);
			return { id, token: tenant.token, client: tenant.api };
		},
		tokensIssued(tenantId) {
			const row = server.app.site.store.db
				.prepare(
					'SELECT COUNT(*) AS issued FROM tokens JOIN tenants ON tokens.tenant_pk = tenants.pk WHERE tenants.id = ?',
				)
				.get(tenantId) as { issued: number };
			return row.issued;
		},
		async restart(next = {}) {
			const port = server.port;
			await server.close();
			server = await startServer({ ...base, port, ...next });
		},
	};
	return site;
}

/** Data for a `siteManagedTenantApi` credential that mints its own tokens for `tenantId` on this site. */
export function managedCredentialData(
	site: TestSite,
	tenantId: string,
	overrides: ICredentialDataDecryptedObject = {},
): ICredentialDataDecryptedObject {
	return {
		adminBaseUrl: site.url,
		adminToken: site.adminToken,
		tenantId,
		baseUrl: site.url,
		lifetime: 900,
		accessToken: '',
		...overrides,
	};
}
