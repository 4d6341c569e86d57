/**
 * The three credentials: their `test` requests as n8n's credential tester runs them, and the managed
 * credential minting its own tenant tokens (once, then again after the service rejects the token).
 */
import axios from 'axios';
import { createHash } from 'crypto';
import http from 'http';
import type { AddressInfo } from 'net';
import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { SiteManagedTenantApi } from '../../credentials/SiteManagedTenantApi.credentials';

import { credentialTestTypes, testCredential } from '../harness/credential-tester';
import { byUrl } from '../harness/locators';
import { credentialId, expectNoSecrets, listPages, useNodeTestContext } from '../harness/nodes';
import { managedCredentialData } from '../harness/reference-server';

const {
	admin: adminType,
	tenant: tenantType,
	managed: managedType,
	probes,
} = credentialTestTypes();

const ctx = useNodeTestContext({}, probes);

const managedData = (tenantId: string, overrides: ICredentialDataDecryptedObject = {}) =>
	managedCredentialData(ctx.site, tenantId, overrides);

const tokenRecord = (token: string) =>
	ctx.site.server.app.site.store.tokens.findByHash(
		createHash('sha256').update(token).digest('hex'),
	);

describe('credential tests (as n8n runs them)', () => {
	test('Admin API: a good admin token passes and creates nothing; wrong tokens and a wrong URL fail clearly', async () => {
		const tenant = await ctx.site.createTenant('cred-admin');
		const add = (data: ICredentialDataDecryptedObject) =>
			ctx.runner.credentials.add('siteAdminApi', data);

		const good = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: ctx.site.url, token: ctx.site.adminToken }),
		);
		expect(good).toEqual({ status: 'OK', message: 'Connection successful!' });
		// A trailing slash on the base URL is fine too.
		expect(
			await testCredential(
				ctx.runner,
				adminType,
				add({ baseUrl: `${ctx.site.url}/`, token: ctx.site.adminToken }),
			),
		).toMatchObject({ status: 'OK' });
		// The test issued no token: the tenant's only token is the one made above, still valid.
		expect((await tenant.client.get('/api/pages')).status).toBe(200);

		const wrong = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: ctx.site.url, token: 'not-the-admin-token' }),
		);
		expect(wrong).toEqual({
			status: 'Error',
			message: expect.stringMatching(/admin token was not accepted/),
		});

		const tenantToken = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: ctx.site.url, token: tenant.token }),
		);
		expect(tenantToken).toEqual({
			status: 'Error',
			message: expect.stringMatching(/not an admin token/),
		});

		const wrongPath = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: `${ctx.site.url}/nothing-here`, token: ctx.site.adminToken }),
		);
		expect(wrongPath.status).toBe('Error');
		expect(wrongPath.message).toMatch(/No Site Management Admin API/);

		const endsInApi = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: `${ctx.site.url}/api`, token: ctx.site.adminToken }),
		);
		expect(endsInApi).toEqual({
			status: 'Error',
			message: expect.stringMatching(
				/No Site Management Admin API.*Give the address without \/api\.$/,
			),
		});

		const unreachable = await testCredential(
			ctx.runner,
			adminType,
			add({ baseUrl: 'http://127.0.0.1:1', token: ctx.site.adminToken }),
		);
		expect(unreachable.status).toBe('Error');
		// Another web server at the URL (its own 404 page, or a catch-all 200): not the service.
		for (const status of [404, 200]) {
			const other = http.createServer((_request, response) =>
				response.writeHead(status, { 'content-type': 'text/html' }).end('<h1>Hello</h1>'),
			);
			await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
			try {
				const { port } = other.address() as AddressInfo;
				const result = await testCredential(
					ctx.runner,
					adminType,
					add({ baseUrl: `http://127.0.0.1:${port}`, token: ctx.site.adminToken }),
				);
				expect(result).toEqual({
					status: 'Error',
					message: expect.stringMatching(/No Site Management Admin API/),
				});
			} finally {
				await new Promise((resolve) => other.close(resolve));
			}
		}
	});

	test('Tenant API: a good tenant token passes; a wrong, a revoked and an admin token fail', async () => {
		const tenant = await ctx.site.createTenant('cred-tenant');
		const add = (token: string) =>
			ctx.runner.credentials.add('siteTenantApi', { baseUrl: ctx.site.url, token });

		expect(await testCredential(ctx.runner, tenantType, add(tenant.token))).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(await testCredential(ctx.runner, tenantType, add('stt_wrong'))).toEqual({
			status: 'Error',
			message: expect.stringMatching(/tenant token was not accepted/),
		});
		expect(await testCredential(ctx.runner, tenantType, add(ctx.site.adminToken))).toEqual({
			status: 'Error',
			message: expect.stringMatching(/not a tenant token/),
		});
		const endsInApi = ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: `${ctx.site.url}/api/`,
			token: tenant.token,
		});
		expect(await testCredential(ctx.runner, tenantType, endsInApi)).toEqual({
			status: 'Error',
			message: expect.stringMatching(/answered 404\)\. Give the address without \/api\.$/),
		});

		expect(
			(await ctx.site.admin.post('/api/tenant/token', { id: 'cred-tenant', revoke_previous: true }))
				.status,
		).toBe(200);
		expect(await testCredential(ctx.runner, tenantType, add(tenant.token))).toMatchObject({
			status: 'Error',
		});
	});

	test('Managed Tenant API: mints a token and passes; a wrong admin token or unknown tenant fails without leaking it', async () => {
		await ctx.site.createTenant('cred-managed');
		const good = ctx.runner.credentials.add('siteManagedTenantApi', managedData('cred-managed'));
		expect(await testCredential(ctx.runner, managedType, good)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		expect(ctx.runner.credentials.read(credentialId(good)).accessToken).toMatch(/^stt_/);

		const badAdmin = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('cred-managed', { adminToken: 'wrong-admin-token-value' }),
		);
		const badAdminResult = await testCredential(ctx.runner, managedType, badAdmin);
		expect(badAdminResult.status).toBe('Error');
		expect(badAdminResult.message).toMatch(
			/Could not get a token for tenant "cred-managed".*HTTP 401/,
		);
		expectNoSecrets(badAdminResult, ['wrong-admin-token-value', ctx.site.adminToken]);

		const unknown = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('no-such-tenant'),
		);
		const unknownResult = await testCredential(ctx.runner, managedType, unknown);
		expect(unknownResult.status).toBe('Error');
		expect(unknownResult.message).toMatch(/Tenant "no-such-tenant" not found.*HTTP 404/);
	});
});

describe('managed tenant credential in workflows', () => {
	const createPages = (
		credentials: ReturnType<typeof ctx.runner.credentials.add>,
		urls: string[],
		batchSize = 1,
	) =>
		ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: urls.map((url) => ({ json: { url } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'create',
				name: '={{ "Page " + $json.url }}',
				url: '={{ $json.url }}',
				locale: 'en',
				options: { batching: { batch: { batchSize } } },
			},
		});

	test('one token per run for all its requests, with the configured lifetime; n8n stores none', async () => {
		const tenant = await ctx.site.createTenant('managed-once');
		const before = ctx.site.tokensIssued('managed-once');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-once', { lifetime: 3600 }),
		);
		const id = credentialId(credentials);

		const runStarted = Date.now();
		const first = await createPages(credentials, ['/a', '/b', '/c', '/d', '/e', '/f'], 3);
		const runEnded = Date.now();
		expect(first.error).toBeUndefined();
		expect(first.items.map((item) => item.json.url)).toEqual(['/a', '/b', '/c', '/d', '/e', '/f']);
		expect(ctx.site.tokensIssued('managed-once')).toBe(before + 1);
		const newest = ctx.site.server.app.site.store.db
			.prepare(
				'SELECT expires_at FROM tokens JOIN tenants ON tokens.tenant_pk = tenants.pk WHERE tenants.id = ? ORDER BY tokens.id DESC LIMIT 1',
			)
			.get('managed-once') as { expires_at: string };
		// Minted during the run (the site runs in this process, on this clock), for an hour.
		const expires = Date.parse(newest.expires_at);
		expect(expires).toBeGreaterThanOrEqual(runStarted + 3600_000);
		expect(expires).toBeLessThanOrEqual(runEnded + 3600_000);
		// The token belongs to the run: n8n's stored credential is not written.
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBeUndefined();
		expect(ctx.runner.credentials.read(id).accessToken).toBe('');

		// The next run mints its own, once.
		const second = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: ['/a', '/c', '/e', '/f'].map((url) => ({ json: { url } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'get',
				url: byUrl('={{ $json.url }}'),
				options: { batching: { batch: { batchSize: 4 } } },
			},
		});
		expect(second.error).toBeUndefined();
		expect(second.items.map((item) => item.json.url)).toEqual(['/a', '/c', '/e', '/f']);
		expect(ctx.site.tokensIssued('managed-once')).toBe(before + 2);

		expectNoSecrets([first.run, second.run], [ctx.site.adminToken, tenant.token]);
		expect((await listPages(tenant.client)).map((page) => page.url).sort()).toEqual([
			'/a',
			'/b',
			'/c',
			'/d',
			'/e',
			'/f',
		]);
	});

	test('after every token of the tenant is revoked, the next run mints again and succeeds', async () => {
		await ctx.site.createTenant('managed-revoked');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-revoked'),
		);
		expect((await createPages(credentials, ['/before'])).error).toBeUndefined();
		const rotation = await ctx.site.admin.post('/api/tenant/token', {
			id: 'managed-revoked',
			revoke_previous: true,
		});
		expect(rotation.status).toBe(200);
		const current = axios.create({
			baseURL: ctx.site.url,
			validateStatus: () => true,
			headers: { Authorization: `Bearer ${rotation.data.token as string}` },
		});
		const after = await createPages(credentials, ['/after-1', '/after-2']);
		expect(after.error).toBeUndefined();
		expect((await listPages(current)).map((page) => page.url).sort()).toEqual([
			'/after-1',
			'/after-2',
			'/before',
		]);
	});

	test('a token n8n kept in the credential from before an edit is never sent', async () => {
		// n8n keeps the hidden token across edits: here a live token of tenant A, in a credential that
		// now names tenant B.
		const a = await ctx.site.createTenant('kept-a');
		const b = await ctx.site.createTenant('kept-b');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('kept-b', { accessToken: a.token }),
		);
		const result = await createPages(credentials, ['/meant-for-b']);
		expect(result.error).toBeUndefined();
		expect(await listPages(a.client)).toEqual([]);
		expect((await listPages(b.client)).map((page) => page.url)).toEqual(['/meant-for-b']);
	});

	test('a tenant that no longer exists fails the item with the central surface message', async () => {
		await ctx.site.createTenant('managed-gone');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-gone'),
		);
		expect((await createPages(credentials, ['/x'])).error).toBeUndefined();
		expect(
			(await ctx.site.admin.delete('/api/tenant', { data: { id: 'managed-gone' } })).status,
		).toBe(200);

		const result = await createPages(credentials, ['/y']);
		expect(result.items).toHaveLength(0);
		expect(result.error?.message).toMatch(/Tenant "managed-gone" not found/);
		expectNoSecrets(result.run, [ctx.site.adminToken]);
	});
});

test('a fixed tenant token that was revoked fails with 401 and the server message, without retrying forever', async () => {
	const tenant = await ctx.tenant('fixed-revoked');
	expect(
		(await ctx.site.admin.post('/api/tenant/token', { id: 'fixed-revoked', revoke_previous: true }))
			.status,
	).toBe(200);
	const result = await tenant.run({ resource: 'page', operation: 'getAll', returnAll: true });
	expect(result.error?.httpCode).toBe('401');
	expect(result.error?.message).toMatch(/token/i);
	expectNoSecrets(result.run, [tenant.token]);
});

describe("the Managed Tenant credential's own token (the credential test, n8n's HTTP Request node)", () => {
	const credential = new SiteManagedTenantApi();
	const authorization = async (data: ICredentialDataDecryptedObject) =>
		(
			await (
				credential.authenticate as (
					credentials: ICredentialDataDecryptedObject,
					options: IHttpRequestOptions,
				) => Promise<IHttpRequestOptions>
			)(data, { url: '/api/pages', baseURL: String(data.baseUrl), headers: {} })
		).headers?.Authorization;

	test('preAuthentication stores the scope beside the token; authenticate sends it only there', async () => {
		await ctx.site.createTenant('own-a');
		const data = managedData('own-a');
		const minted = (await credential.preAuthentication.call(
			{
				helpers: {
					httpRequest: async (options: IHttpRequestOptions) => {
						const response = await axios.request({
							method: options.method,
							url: options.url,
							headers: options.headers as Record<string, string>,
							data: options.body,
							validateStatus: () => true,
							maxRedirects: 0,
						});
						return { statusCode: response.status, headers: response.headers, body: response.data };
					},
				},
			},
			data,
		)) as ICredentialDataDecryptedObject;
		expect(tokenRecord(minted.accessToken as string)?.tenant_id).toBe('own-a');
		const stored = { ...data, ...minted };
		expect(await authorization(stored)).toBe(`Bearer ${String(minted.accessToken)}`);

		// Edited after n8n stored the token: another tenant, another host, another admin: no token.
		const edits: ICredentialDataDecryptedObject[] = [
			{ tenantId: 'own-b' },
			{ baseUrl: 'http://127.0.0.1:9' },
			{ adminBaseUrl: 'http://127.0.0.1:9' },
			{ adminToken: 'another-admin-token' },
		];
		for (const edit of edits) {
			expect(await authorization({ ...stored, ...edit })).toBeUndefined();
		}
		// A token stored without a scope (by an earlier package) is not sent either.
		expect(await authorization({ ...data, accessToken: minted.accessToken })).toBeUndefined();
	});

	test('with the Tenant ID left empty the test says where the tenant goes', async () => {
		const empty = ctx.runner.credentials.add('siteManagedTenantApi', managedData(''));
		const result = await testCredential(ctx.runner, managedType, empty);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Tenant ID is empty/);
		expect(result.message).toMatch(/Fill it in/);
	});

	/** The credential holding a token from an earlier mint, and its authenticate. */
	const storedToken = () => ({
		data: {
			...managedData('own-a'),
			accessToken: 'stt_stored',
			accessTokenScope: 'x',
		} as ICredentialDataDecryptedObject,
		authenticate: credential.authenticate as (
			credentials: ICredentialDataDecryptedObject,
			options: IHttpRequestOptions,
		) => Promise<IHttpRequestOptions>,
	});

	test('the token goes to the Tenant Base URL only: any other address fails, nothing sent', async () => {
		const { data, authenticate } = storedToken();
		const base = String(data.baseUrl);
		for (const url of [
			'http://127.0.0.1:9/api/pages',
			`${base}.evil.example/api/pages`,
			`${base.replace('http:', 'https:')}/api/pages`,
			'//127.0.0.2/api/pages',
		]) {
			await expect(authenticate(data, { url, headers: {} })).rejects.toThrow(
				/sends its token only to its Tenant Base URL/,
			);
		}
		// n8n's legacy helper (HTTP Request node on n8n 1.x) names the address `uri`.
		await expect(
			authenticate(data, { uri: 'http://127.0.0.1:9/x', headers: {} } as never),
		).rejects.toThrow(/only to its Tenant Base URL/);
		await expect(
			authenticate(data, { url: `${base}/api/pages`, headers: {} }),
		).resolves.toBeDefined();
	});

	test('the token never goes through a proxy: an address or {host, port} fails, nothing sent', async () => {
		const { data, authenticate } = storedToken();
		const url = `${String(data.baseUrl)}/api/pages`;
		for (const proxy of ['http://127.0.0.1:9', { host: '127.0.0.1', port: 9 }])
			await expect(authenticate(data, { url, headers: {}, proxy } as never)).rejects.toThrow(
				/only straight to its Tenant Base URL: this request goes through a proxy/,
			);
		for (const proxy of ['', '  ', undefined])
			await expect(authenticate(data, { url, headers: {}, proxy } as never)).resolves.toBeDefined();
	});

	test('a scope that does not allow its own Tenant ID gets no token', async () => {
		const data = managedData('own-a', { tenantScope: 'listed', allowedTenants: 'client-*' });
		const empty = ctx.runner.credentials.add('siteManagedTenantApi', data);
		const result = await testCredential(ctx.runner, managedType, empty);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/may not act on tenant "own-a": it allows the tenants client-\*/,
		);
	});
});

test('the Managed Tenant credential shows its notice where Allowed Tenants holds "*" alone, as n8n\'s editor tests it', () => {
	const notice = new SiteManagedTenantApi().properties.find(
		(property) => property.name === 'catchAllNotice',
	);
	const condition = notice?.displayOptions?.show?.allowedTenants?.[0] as {
		_cnd: { regex: string };
	};
	// n8n's editor: new RegExp(regex).test(value).
	const shows = (value: string) => new RegExp(condition._cnd.regex).test(value);
	expect(
		['*', ' * ', '**', 'acme, *', 'acme,*', '*\nacme', 'acme\n  *  \nbeta'].map(shows),
	).toEqual(Array(7).fill(true));
	expect(['', 'acme', 'client-*', '*-x', 'a*b', 'acme, client-*'].map(shows)).toEqual(
		Array(6).fill(false),
	);
});
