/**
 * The words of the set-up mistakes a new user makes most, through n8n's engine with real HTTP: a base
 * URL that ends in /api, and an address where nothing listens.
 */
import { useNodeTestContext } from '../../harness/nodes';

const ctx = useNodeTestContext();

async function sitemapWith(baseUrl: string, token: string) {
	const credentials = ctx.runner.credentials.add('siteTenantApi', { baseUrl, token });
	return await ctx.runner.runNode({
		type: 'siteTenant',
		credentials,
		parameters: { resource: 'sitemap', operation: 'get', options: { maxRetries: 0 } },
	});
}

test('a base URL ending in /api: the 404 says to drop /api', async () => {
	const tenant = await ctx.site.createTenant('words-api');
	for (const baseUrl of [`${ctx.site.url}/api`, `${ctx.site.url}/api/`]) {
		const result = await sitemapWith(baseUrl, tenant.token);
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.description).toMatch(/base URL ends in \/api: drop \/api/);
	}
	// The same request on the right base URL works, and a 404 there carries no such hint.
	expect((await sitemapWith(ctx.site.url, tenant.token)).error).toBeUndefined();
	const missing = await ctx.runner.runNode({
		type: 'siteTenant',
		credentials: ctx.runner.credentials.add('siteTenantApi', {
			baseUrl: ctx.site.url,
			token: tenant.token,
		}),
		parameters: { resource: 'customApiCall', operation: 'call', path: '/api/nope' },
	});
	expect(missing.error?.httpCode).toBe('404');
	expect(missing.error?.description ?? '').not.toMatch(/drop \/api/);
});

test('a refused connection says the server is not listening at that address', async () => {
	const result = await sitemapWith('http://user:pw@127.0.0.1:1', 'stt_whatever');
	expect(result.error?.message).toBe(
		"The server is not listening at http://127.0.0.1:1: the connection was refused. Check the credential's base URL and that the service is running.",
	);
	expect(result.error?.description).toBe(
		'No answer from the service after 1 attempt (ECONNREFUSED).\n\nSitemap > Get failed for item 0.',
	);
});
