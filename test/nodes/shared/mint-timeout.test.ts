/**
 * Options > Timeout covers the token request of a Managed Tenant credential too (it was a fixed
 * 30 s): the Admin API held back longer than the Timeout fails the item at the Timeout.
 */
import { startDelayProxy, type DelayProxy } from '../../harness/delay-proxy';
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();
let proxy: DelayProxy;
/**
 * How long the proxy holds each token request. The short Timeout (300 ms) must end the run before the
 * Admin API answers: 30x that Timeout, so a loaded machine has room. Below the old fixed 30 s, so a
 * token request that ignored the Timeout would get its token and the item would not fail.
 */
const ADMIN_DELAY_MS = 10_000;
/** The long Timeout: 10x the Admin API's delay, so waiting it out never depends on the machine's speed. */
const LONG_TIMEOUT_MS = 10 * ADMIN_DELAY_MS;

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
	const first = proxy.log.length;
	const short = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap(300),
		credentials,
	});
	expect(short.error?.message).toMatch(/get a tenant token/);
	// The Timeout ended it: the run was over before the Admin API answered any of its token requests.
	const held = proxy.log.slice(first);
	expect(held.length).toBeGreaterThan(0);
	expect(held.map((request) => request.status)).toEqual(held.map(() => undefined));

	const long = await ctx.runner.runNode({
		type: 'siteTenant',
		parameters: sitemap(LONG_TIMEOUT_MS),
		credentials,
	});
	expect(long.error).toBeUndefined();
	// jest's limit, a hang guard: above the long Timeout (100 s), which the run never comes near.
}, 160_000);
