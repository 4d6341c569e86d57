/**
 * `if_updated_at` on PUT /api/content (an extension): the update is made only while the page still
 * has the version the caller read; otherwise 412, nothing written. Without the extensions the field
 * is refused as any unknown one, naming it.
 */
import {
	type Harness,
	createPage,
	createTenant,
	expectError,
	expectOk,
	start,
	stopAll,
	removeDataDirs,
} from '../helpers';

let h: Harness;
let plain: Harness;
beforeAll(async () => {
	h = await start();
	plain = await start({ extensions: false });
});
afterAll(async () => {
	await stopAll();
	removeDataDirs();
});

const blocks = (text: string) => [{ type: 'text', body: text }];

test('the version the caller read: written, and the page gets a later updated_at', async () => {
	const t = await createTenant(h);
	const page = await createPage(t, '/about');
	const written = expectOk(
		await t.api.put('/api/content', {
			url: '/about',
			templates: blocks('one'),
			if_updated_at: page.updated_at,
		}),
	);
	expect(written.page.templates).toEqual(blocks('one'));
	expect(written.page.updated_at > page.updated_at).toBe(true);
	// Straight after, with the new version: still fine, and later again (no two writes share one).
	const again = expectOk(
		await t.api.put('/api/content', {
			url: '/about',
			templates: blocks('two'),
			if_updated_at: written.page.updated_at,
		}),
	);
	expect(again.page.updated_at > written.page.updated_at).toBe(true);
});

test('a version the page no longer has: 412 with the current one, nothing written', async () => {
	const t = await createTenant(h);
	const page = await createPage(t, '/about');
	const edit = expectOk(
		await t.api.put('/api/content', { url: '/about', templates: blocks('edit') }),
	);
	const refused = expectError(
		await t.api.put('/api/content', {
			url: '/about',
			templates: blocks('stale'),
			banner: { title: 'x' },
			if_updated_at: page.updated_at,
		}),
		412,
		'precondition_failed',
	);
	expect(refused.details).toEqual({ updated_at: edit.page.updated_at });
	expect(refused.message).toContain(page.updated_at);
	const [stored] = expectOk(await t.api.get('/api/pages', { params: { url: '/about' } })).data;
	expect(stored).toMatchObject({
		templates: blocks('edit'),
		banner: null,
		updated_at: edit.page.updated_at,
	});
});

test('an unknown page is still 404, and a bad if_updated_at 400 naming it', async () => {
	const t = await createTenant(h);
	expectError(
		await t.api.put('/api/content', { url: '/missing', templates: [], if_updated_at: 'x' }),
		404,
		'not_found',
	);
	await createPage(t, '/about');
	const bad = expectError(
		await t.api.put('/api/content', { url: '/about', templates: [], if_updated_at: 12 }),
		400,
		'validation_failed',
	);
	expect(bad.details.map((d: { field: string }) => d.field)).toEqual(['if_updated_at']);
});

test('without the extensions if_updated_at is refused as an unknown field, naming it', async () => {
	const t = await createTenant(plain);
	const page = await createPage(t, '/about');
	const refused = expectError(
		await t.api.put('/api/content', {
			url: '/about',
			templates: blocks('one'),
			if_updated_at: page.updated_at,
		}),
		400,
		'validation_failed',
	);
	expect(refused.details.map((d: { field: string }) => d.field)).toEqual(['if_updated_at']);
	const doc = expectOk(await plain.admin.get('/openapi.json'));
	const body = doc.paths['/api/content'].put.requestBody.content['application/json'].schema;
	expect(Object.keys(body.properties)).not.toContain('if_updated_at');
});

test('the OpenAPI document marks if_updated_at as an extension', async () => {
	const doc = expectOk(await h.admin.get('/openapi.json'));
	const body = doc.paths['/api/content'].put.requestBody.content['application/json'].schema;
	expect(body.properties.if_updated_at).toMatchObject({ type: 'string', 'x-extension': true });
});
