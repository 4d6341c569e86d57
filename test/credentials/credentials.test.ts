/**
 * The three credentials: their `test` requests as n8n's credential tester runs them, and the managed
 * credential minting its own tenant tokens (once, then again after the service rejects the token).
 */
import axios from 'axios';
import { createHash } from 'crypto';
import http from 'http';
import type { AddressInfo } from 'net';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { credentialTestTypes, testCredential } from '../harness/credential-tester';
import {
	credentialId,
	expectNoSecrets,
	listPages,
	poll,
	useNodeTestContext,
} from '../harness/nodes';
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

	test('mints one token for many requests and across executions, with the configured lifetime', async () => {
		const tenant = await ctx.site.createTenant('managed-once');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-once', { lifetime: 3600 }),
		);
		const id = credentialId(credentials);

		// One item after the other: the first request mints, the others reuse the stored token.
		const first = await createPages(credentials, ['/a', '/b', '/c', '/d', '/e', '/f']);
		expect(first.error).toBeUndefined();
		expect(first.items.map((item) => (item.json.page as { url: string }).url)).toEqual([
			'/a',
			'/b',
			'/c',
			'/d',
			'/e',
			'/f',
		]);
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBe(1);

		const minted = ctx.runner.credentials.read(id).accessToken as string;
		expect(minted).toMatch(/^stt_/);
		const record = tokenRecord(minted);
		expect(record?.tenant_id).toBe('managed-once');
		const lifetime = Date.parse(record!.expires_at!) - Date.now();
		expect(lifetime).toBeGreaterThan(3500_000);
		expect(lifetime).toBeLessThanOrEqual(3600_000);

		// A later execution, with concurrent items, uses the stored token as well.
		const second = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			input: ['/a', '/c', '/e', '/f'].map((url) => ({ json: { url } })),
			parameters: {
				authentication: 'managedTenant',
				resource: 'page',
				operation: 'get',
				url: '={{ $json.url }}',
				options: { batching: { batch: { batchSize: 4 } } },
			},
		});
		expect(second.error).toBeUndefined();
		expect(second.items.map((item) => item.json.url)).toEqual(['/a', '/c', '/e', '/f']);
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBe(1);
		expect(ctx.runner.credentials.read(id).accessToken).toBe(minted);

		// The minted token never shows in the workflow's data, nor the admin token.
		expectNoSecrets([first.run, second.run], [minted, ctx.site.adminToken]);
		// The pages really are the tenant's.
		expect((await listPages(tenant.client)).map((page) => page.url).sort()).toEqual([
			'/a',
			'/b',
			'/c',
			'/d',
			'/e',
			'/f',
		]);
	});

	test('a credential saved by 0.1.0 (lifetime in the old field tokenLifetime) keeps its lifetime', async () => {
		await ctx.site.createTenant('managed-old-field');
		const { lifetime: _default, ...data } = managedData('managed-old-field');
		const credentials = ctx.runner.credentials.add('siteManagedTenantApi', {
			...data,
			tokenLifetime: 7200,
		});
		expect((await createPages(credentials, ['/old'])).error).toBeUndefined();
		const record = tokenRecord(
			ctx.runner.credentials.read(credentialId(credentials)).accessToken as string,
		);
		const lifetime = Date.parse(record!.expires_at!) - Date.now();
		expect(lifetime).toBeGreaterThan(7100_000);
		expect(lifetime).toBeLessThanOrEqual(7200_000);
	});

	test('after its token is revoked (rotation on the admin surface) the next run mints again and succeeds', async () => {
		const tenant = await ctx.site.createTenant('managed-revoked');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-revoked'),
		);
		const id = credentialId(credentials);

		expect((await createPages(credentials, ['/before'])).error).toBeUndefined();
		const firstToken = ctx.runner.credentials.read(id).accessToken as string;
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBe(1);

		const rotation = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			tenantId: 'managed-revoked',
			revokePrevious: true,
		});
		expect(rotation.error).toBeUndefined();
		const currentClient = axios.create({
			baseURL: ctx.site.url,
			validateStatus: () => true,
			headers: { Authorization: `Bearer ${rotation.items[0].json.token as string}` },
		});
		expect(tokenRecord(firstToken)?.revoked_at).toEqual(expect.any(String));

		const after = await createPages(credentials, ['/after-1', '/after-2']);
		expect(after.error).toBeUndefined();
		expect(after.items.map((item) => (item.json.page as { url: string }).url)).toEqual([
			'/after-1',
			'/after-2',
		]);
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBe(2);
		const secondToken = ctx.runner.credentials.read(id).accessToken as string;
		expect(secondToken).not.toBe(firstToken);
		expect(tokenRecord(secondToken)?.revoked_at).toBeNull();

		// Exactly one page per item: the request refused with 401 created nothing, the resend did.
		expect((await listPages(currentClient)).map((page) => page.url).sort()).toEqual([
			'/after-1',
			'/after-2',
			'/before',
		]);
		expect((await tenant.client.get('/api/pages')).status).toBe(401);
		expectNoSecrets(after.run, [firstToken, secondToken, ctx.site.adminToken]);
	});

	test('a replacement is shared with the requests its rejected token failed, not a minute later', async () => {
		await ctx.site.createTenant('managed-late');
		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-late'),
		);
		const id = credentialId(credentials);
		const revokeAll = async () =>
			expect(
				(
					await ctx.site.admin.post('/api/tenant/token', {
						id: 'managed-late',
						revoke_previous: true,
					})
				).status,
			).toBe(200);

		expect((await createPages(credentials, ['/l1'])).error).toBeUndefined();
		const first = ctx.runner.credentials.read(id).accessToken as string;
		await revokeAll();
		expect((await createPages(credentials, ['/l2'])).error).toBeUndefined();
		const replacement = ctx.runner.credentials.read(id).accessToken as string;
		expect(replacement).not.toBe(first);

		// Another process stores its older token late, then a rotation revokes every token; a minute on,
		// a request presenting that older token gets a fresh mint, not the (revoked) replacement.
		ctx.runner.credentials.update(id, { accessToken: first });
		await revokeAll();
		const now = Date.now.bind(Date);
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => now() + 61_000);
		try {
			const late = await createPages(credentials, ['/l3']);
			expect(late.error).toBeUndefined();
		} finally {
			clock.mockRestore();
		}
		const third = ctx.runner.credentials.read(id).accessToken as string;
		expect([first, replacement]).not.toContain(third);
		expect(tokenRecord(third)?.revoked_at).toBeNull();
	});

	test('an expired cached token is replaced the same way', async () => {
		await ctx.site.createTenant('managed-expired');
		const shortLived = await ctx.site.admin.post('/api/tenant/token', {
			id: 'managed-expired',
			expires_in: 1,
		});
		const expired = shortLived.data.token as string;
		await poll(
			async () => {
				const response = await axios.get(`${ctx.site.url}/api/pages`, {
					headers: { Authorization: `Bearer ${expired}` },
					validateStatus: () => true,
				});
				return response.status === 401;
			},
			5000,
			100,
		);

		const credentials = ctx.runner.credentials.add(
			'siteManagedTenantApi',
			managedData('managed-expired', { accessToken: expired }),
		);
		const id = credentialId(credentials);
		const result = await ctx.runner.runNode({
			type: 'siteTenant',
			credentials,
			parameters: {
				authentication: 'managedTenant',
				resource: 'variable',
				operation: 'set',
				key: 'k',
				value: 'v',
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ variable: { key: 'k', value: 'v' } });
		expect(ctx.runner.credentials.preAuthenticationCalls.get(id)).toBe(1);
		expect(ctx.runner.credentials.read(id).accessToken).not.toBe(expired);
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
