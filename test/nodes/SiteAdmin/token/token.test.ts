/** Site Management Admin node, Token: issuing tenant tokens on the central surface, run in n8n's engine. */
import axios from 'axios';

import { expectNoSecrets, useNodeTestContext } from '../../../harness/nodes';

const ctx = useNodeTestContext();

/** The tenant row as the server stores it (to see the fqdn, which no endpoint returns). */
const storedTenant = (id: string) => ctx.site.server.app.site.store.tenants.findById(id);
const tenantClient = (token: string) =>
	axios.create({
		baseURL: ctx.site.url,
		validateStatus: () => true,
		headers: { Authorization: `Bearer ${token}` },
	});

describe('Token', () => {
	test('Issue returns a working token with its expiry; only Issue outputs a token', async () => {
		await ctx.adminNode({ resource: 'tenant', operation: 'create', id: 'token-owner' });
		const before = Date.now();
		const result = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'token-owner',
			expiresIn: 600,
			revokePrevious: false,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const issued = result.items[0].json as {
			token: string;
			token_type: string;
			tenant_id: string;
			expires_at: string;
		};
		expect(issued).toEqual({
			token: expect.stringMatching(/^\S{40,}$/),
			token_type: 'Bearer',
			tenant_id: 'token-owner',
			expires_at: expect.any(String),
		});
		const expiresAt = Date.parse(issued.expires_at);
		expect(expiresAt).toBeGreaterThanOrEqual(before + 590_000);
		expect(expiresAt).toBeLessThanOrEqual(Date.now() + 610_000);

		const response = await tenantClient(issued.token).get('/api/pages');
		expect(response.status).toBe(200);

		// The other operations' outputs never carry it.
		const update = await ctx.adminNode({
			resource: 'tenant',
			operation: 'update',
			id: 'token-owner',
			fqdn: 'owner.example.com',
		});
		expectNoSecrets(update.run, [issued.token, ctx.site.adminToken]);
	});

	test('Issue with lifetime 0 gives a token that does not expire', async () => {
		await ctx.site.createTenant('forever');
		const result = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'forever',
			expiresIn: 0,
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.expires_at).toBeNull();
		expect(
			(await tenantClient(result.items[0].json.token as string).get('/api/pages')).status,
		).toBe(200);
	});

	test('Revoke Previous rotates: earlier tokens get 401, the new one works', async () => {
		const tenant = await ctx.site.createTenant('rotating');
		const second = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'rotating',
			revokePrevious: false,
		});
		const secondToken = second.items[0].json.token as string;
		// Without revoke_previous both tokens work.
		expect((await tenant.client.get('/api/pages')).status).toBe(200);
		expect((await tenantClient(secondToken).get('/api/pages')).status).toBe(200);

		const rotated = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'rotating',
			revokePrevious: true,
		});
		expect(rotated.error).toBeUndefined();
		const newToken = rotated.items[0].json.token as string;
		expect(newToken).not.toBe(secondToken);
		expect((await tenant.client.get('/api/pages')).status).toBe(401);
		expect((await tenantClient(secondToken).get('/api/pages')).status).toBe(401);
		expect((await tenantClient(newToken).get('/api/pages')).status).toBe(200);
	});

	test('Issue for an unknown tenant fails with 404', async () => {
		const result = await ctx.adminNode(
			{ resource: 'token', operation: 'issue', id: 'ghost' },
			{ continueOnFail: true },
		);
		expect(result.items).toEqual([
			{ json: { error: 'Tenant "ghost" not found.', httpCode: '404' }, pairedItem: { item: 0 } },
		]);
	});

	test('the Token Issue operation tells the user to keep the token in a credential', () => {
		const description = ctx.runner.nodeTypes.getByName('siteAdmin').description;
		const notice = description.properties.find(
			(property) =>
				property.type === 'notice' && property.displayOptions?.show?.operation?.includes('issue'),
		);
		expect(notice?.displayName).toMatch(/credential/i);
		expect(notice?.displayName).toMatch(/not store it in a workflow/i);
	});
});

test('a tenant token on the central surface is refused with 403', async () => {
	const tenant = await ctx.site.createTenant('sneaky');
	const credential = ctx.runner.credentials.add('siteAdminApi', {
		baseUrl: ctx.site.url,
		token: tenant.token,
	});
	const result = await ctx.runner.runNode({
		type: 'siteAdmin',
		parameters: { resource: 'tenant', operation: 'create', id: 'sneaky-2' },
		credentials: credential,
	});
	expect(result.error?.httpCode).toBe('403');
	expect(storedTenant('sneaky-2')).toBeUndefined();
	expectNoSecrets(result.run, [tenant.token]);
});

test.each([
	['={{ -1 }}', '-1'],
	['={{ "-5" }}', '"-5"'],
	['={{ 0.5 }}', '0.5'],
	['={{ 1.9 }}', '1.9'],
	['={{ "abc" }}', '"abc"'],
	['={{ null }}', 'null'],
	['={{ 400000000 }}', '400000000'],
])(
	'Issue with Expires In %s fails the item naming the field before anything is sent',
	async (expiresIn, shown) => {
		await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'lifetimes' });
		const result = await ctx.adminNode({
			resource: 'token',
			operation: 'issue',
			id: 'lifetimes',
			expiresIn,
		});
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe(
			`Expires In must be a whole number of seconds from 1 to 315360000, or 0 for a token that never expires; got ${shown}`,
		);
	},
);

test('Issue with Expires In "600" (text from an expression) is 600 seconds', async () => {
	await ctx.adminNode({ resource: 'tenant', operation: 'createOrUpdate', id: 'lifetimes-text' });
	const result = await ctx.adminNode({
		resource: 'token',
		operation: 'issue',
		id: 'lifetimes-text',
		expiresIn: '={{ "600" }}',
	});
	const expiresAt = Date.parse(String(result.items[0].json.expires_at));
	expect(expiresAt - Date.now()).toBeGreaterThan(590_000);
	expect(expiresAt - Date.now()).toBeLessThanOrEqual(600_000);
});
