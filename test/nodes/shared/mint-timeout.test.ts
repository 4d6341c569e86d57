/**
 * Options > Timeout covers the token request of a Managed Tenant credential too (it was a fixed
 * 30 s): the Admin API held back longer than the Timeout fails the item at the Timeout.
 */
import { startDelayProxy, type DelayProxy } from '../../harness/delay-proxy';
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
let proxy: DelayProxy;
const ADMIN_DELAY_MS = 6000;

beforeAll(async () => {
	proxy = await startDelayProxy(() => ctx.site.url);
});
afterAll(async () => await proxy.close());

const sitemap = (timeout: number) => ({
	authentication: 'managedTenant',
	resource: 'sitemap',
	operation: 'get',
	options: { timeout, maxRetries: 0 },
});

test('a token request slower than the Timeout fails at the Timeout; a longer Timeout waits for it', async () => {
	await ctx.site.createTenant('mint-timeout');
	const credentials = ctx.managedCredential('mint-timeout', {
		adminBaseUrl: `${proxy.url}/_/delay=${ADMIN_DELAY_MS}`,
	});
	const started = Date.now();
	const short = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap(300),
		credentials,
	});
	// Well short of the Admin API's delay, with room for a loaded machine: the Timeout ended it.
	expect(Date.now() - started).toBeLessThan(ADMIN_DELAY_MS - 1500);
	expect(short.error?.message).toMatch(/get a tenant token/);

	const long = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap(10_000),
		credentials,
	});
	expect(long.error).toBeUndefined();
});
