/**
 * A token mint the Admin API refuses fails the item with the Admin API's status in `httpCode`, like
 * any other answer, so a workflow can branch on it (a tenant that does not exist: 404).
 */
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

const sitemap = {
	authentication: 'managedTenant',
	resource: 'sitemap',
	operation: 'get',
	options: { maxRetries: 0 },
};

test('a missing tenant: httpCode 404 on the error item and on the error that stops the node', async () => {
	const credentials = ctx.managedCredential('mint-status-missing');
	const continued = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap,
		credentials,
		continueOnFail: true,
	});
	expect(continued.items[0].json).toMatchObject({
		error: expect.stringMatching(
			/Could not get a token for tenant "mint-status-missing".*\(HTTP 404\)/,
		),
		httpCode: '404',
	});
	const stopped = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap,
		credentials,
	});
	expect(stopped.error?.httpCode).toBe('404');
});

test('a wrong admin token: httpCode 401', async () => {
	await ctx.site.createTenant('mint-status-401');
	const credentials = ctx.managedCredential('mint-status-401', { adminToken: 'wrong-admin-token' });
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap,
		credentials,
		continueOnFail: true,
	});
	expect(result.items[0].json.httpCode).toBe('401');
});

test("a mint's 404 is not the site's: Setting > Update's Dry Run names the missing tenant, not a missing endpoint", async () => {
	const result = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: {
			authentication: 'managedTenant',
			resource: 'settings',
			operation: 'update',
			updateFields: { googleCode: 'G-1' },
			dryRun: true,
			options: { maxRetries: 0 },
		},
		credentials: ctx.managedCredential('mint-status-no-site'),
		continueOnFail: true,
	});
	expect(result.items[0].json).toMatchObject({
		error: expect.stringMatching(/tenant "mint-status-no-site".*not found/),
		httpCode: '404',
	});
});
