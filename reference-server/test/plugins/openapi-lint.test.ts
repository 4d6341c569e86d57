/**
 * What the OpenAPI linters (npm run lint:openapi) and generated clients need from the document:
 * servers, a unique operationId and a security requirement on every operation, no Idempotency-Key on
 * the read-only sitemap, and the download's file bytes rather than JSON.
 */
import { type Harness, useServer } from '../helpers';

let h: Harness;
useServer((started) => (h = started), { enableVariables: true });

async function operations(): Promise<[string, any][]> {
	const doc = (await h.anon.get('/openapi.json')).data;
	return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
		Object.entries(item).map(
			([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, any],
		),
	);
}

test('the document names its servers', async () => {
	expect((await h.anon.get('/openapi.json')).data.servers).toEqual([{ url: '/' }]);
});

test('every operation has a unique camelCase operationId and a security requirement', async () => {
	const ops = await operations();
	const ids = ops.map(([, op]) => op.operationId);
	expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
	expect(new Set(ids).size).toBe(ids.length);
	expect(ops.filter(([, op]) => !Array.isArray(op.security)).map(([key]) => key)).toEqual([]);
	const publicOps = ops.filter(([, op]) => op.security.length === 0).map(([key]) => key);
	expect(publicOps).toEqual(
		expect.arrayContaining([
			'GET /health',
			'GET /openapi.json',
			'GET /assets/{assetId}/{fileName}',
			'POST /forms/{tenantId}/contact',
			'POST /forms/{tenantId}/claims',
		]),
	);
});

test('the sitemap declares no Idempotency-Key; the download and the document declare their content', async () => {
	const ops = Object.fromEntries(await operations());
	const headers = (ops['POST /api/sitemap'].parameters ?? []).map((p: any) => p.name);
	expect(headers).not.toContain('Idempotency-Key');
	expect(Object.keys(ops['GET /assets/{assetId}/{fileName}'].responses['200'].content)).toEqual([
		'*/*',
	]);
	expect(ops['GET /openapi.json'].responses['200'].content['application/json']).toBeDefined();
});
