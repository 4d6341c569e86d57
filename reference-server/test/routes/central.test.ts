/**
 * Central surface: tenant create / rename / delete and token issue, expiry and rotation.
 */
import {
	type Harness,
	client,
	createPage,
	createTenant,
	detailFields,
	expectError,
	expectOk,
	issueToken,
	uniqueId,
	useServer,
	waitFor,
} from '../helpers';

let h: Harness;
useServer((started) => (h = started));

describe('POST /api/tenant', () => {
	it('creates a tenant with and without fqdn', async () => {
		const a = await h.admin.post('/api/tenant', { id: uniqueId('acme') });
		expect(a.status).toBe(200);
		expect(a.data).toEqual({ message: 'Tenant created successfully.' });

		const b = await h.admin.post('/api/tenant', { id: uniqueId('shop'), fqdn: 'shop.example.com' });
		expect(b.status).toBe(200);
		expect(b.data).toEqual({ message: 'Tenant created successfully.' });
	});

	it('accepts an id of 63 characters and of one character', async () => {
		const long = 'a' + 'b'.repeat(56) + Math.random().toString(36).slice(2, 8).padEnd(6, '0');
		expect(long).toHaveLength(63);
		expect((await h.admin.post('/api/tenant', { id: long })).status).toBe(200);
		const one = String(Math.floor(Math.random() * 10));
		// a single digit may already exist from a repeated run of this file on the same server: not here,
		// the server is fresh.
		expect((await h.admin.post('/api/tenant', { id: one })).status).toBe(200);
		expect((await h.admin.post('/api/tenant', { id: '9_x-y' })).status).toBe(200);
	});

	it('answers 409 conflict for a duplicate id', async () => {
		const id = uniqueId('dup');
		expectOk(await h.admin.post('/api/tenant', { id }));
		expectError(await h.admin.post('/api/tenant', { id }), 409, 'conflict');
	});

	it.each([
		['uppercase letters', 'Acme'],
		['a leading dash', '-acme'],
		['a leading underscore', '_acme'],
		['a space', 'ac me'],
		['a dot', 'ac.me'],
		['64 characters', 'a'.repeat(64)],
		['the empty string', ''],
	])('rejects an id with %s (400 validation_failed naming id)', async (_label, id) => {
		const body = expectError(await h.admin.post('/api/tenant', { id }), 400, 'validation_failed');
		expect(detailFields(body)).toContain('id');
	});

	it('rejects a missing id and a non-string id', async () => {
		expect(
			detailFields(expectError(await h.admin.post('/api/tenant', {}), 400, 'validation_failed')),
		).toContain('id');
		expect(
			detailFields(
				expectError(await h.admin.post('/api/tenant', { id: 42 }), 400, 'validation_failed'),
			),
		).toContain('id');
	});

	it('lists every bad field at once (id and fqdn)', async () => {
		const res = await h.admin.post('/api/tenant', { id: 'Not Valid!', fqdn: 'not a domain' });
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(expect.arrayContaining(['id', 'fqdn']));
	});

	it.each(['not a domain', 'http://example.com', '-bad.example.com', 'example..com'])(
		'rejects fqdn %p',
		async (fqdn) => {
			const res = await h.admin.post('/api/tenant', { id: uniqueId('f'), fqdn });
			expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('fqdn');
		},
	);
});

describe('POST /api/tenant/token', () => {
	it('issues a bearer token with 32+ random bytes and no expiry by default', async () => {
		const id = uniqueId('tok');
		expectOk(await h.admin.post('/api/tenant', { id }));
		const res = await h.admin.post('/api/tenant/token', { id });
		expect(res.status).toBe(200);
		expect(res.data).toEqual(
			expect.objectContaining({
				token: expect.any(String),
				token_type: 'Bearer',
				tenant_id: id,
				expires_at: null,
			}),
		);
		// 32 bytes are at least 43 characters in base64url and 64 in hex
		expect(res.data.token.length).toBeGreaterThanOrEqual(43);
		const second = await h.admin.post('/api/tenant/token', { id });
		expect(second.data.token).not.toBe(res.data.token);

		const api = client(h.url, res.data.token);
		expect((await api.get('/api/pages')).status).toBe(200);
	});

	it('sets expires_at for expires_in', async () => {
		const id = uniqueId('exp');
		expectOk(await h.admin.post('/api/tenant', { id }));
		const before = Date.now();
		const res = await h.admin.post('/api/tenant/token', { id, expires_in: 3600 });
		expect(res.status).toBe(200);
		expect(typeof res.data.expires_at).toBe('string');
		const at = Date.parse(res.data.expires_at);
		expect(Number.isNaN(at)).toBe(false);
		expect(at).toBeGreaterThanOrEqual(before + 3599_000);
		expect(at).toBeLessThanOrEqual(Date.now() + 3601_000);
	});

	it('answers 404 for an unknown tenant', async () => {
		expectError(
			await h.admin.post('/api/tenant/token', { id: uniqueId('ghost') }),
			404,
			'not_found',
		);
	});

	it('validates id, expires_in and revoke_previous together', async () => {
		const res = await h.admin.post('/api/tenant/token', {
			expires_in: 'soon',
			revoke_previous: 'yes',
		});
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(expect.arrayContaining(['id', 'expires_in', 'revoke_previous']));
	});

	it.each([-5, 'soon'])('rejects expires_in %p', async (expires_in) => {
		const id = uniqueId('bad-exp');
		expectOk(await h.admin.post('/api/tenant', { id }));
		const res = await h.admin.post('/api/tenant/token', { id, expires_in });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toContain('expires_in');
	});

	it('expires a token: expires_in 1 works at first, then answers 401', async () => {
		const t = await createTenant(h);
		const short = await issueToken(h, t.id, { expires_in: 1 });
		const api = client(h.url, short);
		const first = await api.get('/api/pages');
		// the token is valid for one second; a slow machine may already be past it, so only check the shape
		expect([200, 401]).toContain(first.status);
		const res = await waitFor(
			async () => {
				const r = await api.get('/api/pages');
				return r.status === 401 ? r : undefined;
			},
			5000,
			'token expiry',
			100,
		);
		expectError(res, 401, 'unauthorized');
		// the tenant's other token is untouched
		expect((await t.api.get('/api/pages')).status).toBe(200);
	});

	it('an expired token answers 401 on every tenant call, not only reads', async () => {
		const t = await createTenant(h);
		const short = await issueToken(h, t.id, { expires_in: 1 });
		const api = client(h.url, short);
		await waitFor(
			async () => (await api.get('/api/pages')).status === 401,
			5000,
			'token expiry',
			100,
		);
		expectError(
			await api.post('/api/page', { name: 'x', url: '/x', locale: 'en' }),
			401,
			'unauthorized',
		);
		expectError(await api.post('/api/settings', { noindex: 1 }), 401, 'unauthorized');
	});

	it('rotates: revoke_previous revokes every earlier token, the new one works', async () => {
		const t = await createTenant(h);
		const second = await issueToken(h, t.id);
		const a1 = t.api;
		const a2 = client(h.url, second);
		expect((await a1.get('/api/pages')).status).toBe(200);
		expect((await a2.get('/api/pages')).status).toBe(200);

		const res = await h.admin.post('/api/tenant/token', { id: t.id, revoke_previous: true });
		expect(res.status).toBe(200);
		const a3 = client(h.url, res.data.token);

		expectError(await a1.get('/api/pages'), 401, 'unauthorized');
		expectError(await a2.get('/api/pages'), 401, 'unauthorized');
		expect((await a3.get('/api/pages')).status).toBe(200);

		// a later token without revoke_previous leaves the current one alone
		const a4 = client(h.url, await issueToken(h, t.id));
		expect((await a3.get('/api/pages')).status).toBe(200);
		expect((await a4.get('/api/pages')).status).toBe(200);
	});

	it('an issue prunes expired tokens of every tenant and leaves the others known', async () => {
		const a = await createTenant(h);
		const b = await createTenant(h);
		const short = await issueToken(h, a.id, { expires_in: 1 });
		// a's tokens with an expiry: only the short one (createTenant's own has none)
		const rows = () =>
			h.server.app.site.store.db
				.prepare<[string], { n: number }>(
					'SELECT COUNT(*) AS n FROM tokens t JOIN tenants tn ON tn.pk = t.tenant_pk WHERE tn.id = ? AND t.expires_at IS NOT NULL',
				)
				.get(a.id)!.n;
		await waitFor(
			async () => (await client(h.url, short).get('/api/pages')).status === 401,
			5000,
			'token expiry',
			100,
		);
		expect(rows()).toBeGreaterThan(0);
		await issueToken(h, b.id);
		expect(rows()).toBe(0);
		// a's long-lived token still works after b's issue
		expect((await a.api.get('/api/pages')).status).toBe(200);
	});

	it('rotation of one tenant leaves the tokens of another tenant working', async () => {
		const a = await createTenant(h);
		const b = await createTenant(h);
		expectOk(await h.admin.post('/api/tenant/token', { id: a.id, revoke_previous: true }));
		expectError(await a.api.get('/api/pages'), 401, 'unauthorized');
		expect((await b.api.get('/api/pages')).status).toBe(200);
	});
});

describe('PUT /api/tenant (update / rename)', () => {
	it('updates fqdn without changing the id', async () => {
		const t = await createTenant(h, uniqueId('upd'), 'old.example.com');
		const res = await h.admin.put('/api/tenant', {
			old_id: t.id,
			id: t.id,
			fqdn: 'new.example.com',
		});
		expect(res.status).toBe(200);
		expect(res.data).toEqual({ message: 'Tenant updated successfully.' });
		expect((await t.api.get('/api/pages')).status).toBe(200);
	});

	it('renames: pages and settings follow, the old tokens stop; the old id is gone', async () => {
		const t = await createTenant(h, uniqueId('old'));
		await createPage(t, '/about-us');
		await createPage(t, '/contact');
		expectOk(await t.api.post('/api/settings', { google_code: 'G-RENAME', noindex: 1 }));
		const newId = uniqueId('new');

		const res = await h.admin.put('/api/tenant', {
			old_id: t.id,
			id: newId,
			fqdn: 'renamed.example.com',
		});
		expect(res.status).toBe(200);
		expect(res.data).toEqual({ message: 'Tenant updated successfully.' });

		// the token issued for the old name stops: it never reaches the renamed tenant
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');

		// the new id issues tokens that see the same data; settings followed
		const fresh = client(h.url, await issueToken(h, newId));
		const list = expectOk(await fresh.get('/api/pages', { params: { per_page: 100 } }));
		expect(list.data.map((p: any) => p.url).sort()).toEqual(['/about-us', '/contact']);
		const settings = expectOk(
			await fresh.post('/api/settings', { statistics_iframe: '<iframe></iframe>' }),
		);
		expect(settings.settings).toEqual(
			expect.objectContaining({ google_code: 'G-RENAME', noindex: 1 }),
		);

		// the old id is gone everywhere
		expectError(await h.admin.post('/api/tenant/token', { id: t.id }), 404, 'not_found');
		expectError(
			await h.admin.put('/api/tenant', { old_id: t.id, id: uniqueId('x') }),
			404,
			'not_found',
		);
		expectError(await h.admin.delete('/api/tenant', { data: { id: t.id } }), 404, 'not_found');
		// and can be taken again by a new tenant, which the old token does not reach either
		expect((await h.admin.post('/api/tenant', { id: t.id })).status).toBe(200);
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		// an fqdn change alone keeps the tokens
		expectOk(await h.admin.put('/api/tenant', { id: newId, fqdn: 'again.example.com' }));
		expect((await fresh.get('/api/pages')).status).toBe(200);
	});

	it('a token a rename ended stays dead: renamed back, back again, deleted and re-created', async () => {
		const orig = uniqueId('orig');
		const moved = uniqueId('moved');
		const t = await createTenant(h, orig);
		const rename = async (from: string, to: string) =>
			expectOk(await h.admin.put('/api/tenant', { old_id: from, id: to }));
		await rename(orig, moved);
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		await rename(moved, orig);
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		// A token issued after the rename back lives, and a later round trip ends it too.
		const later = client(h.url, await issueToken(h, orig));
		expect((await later.get('/api/pages')).status).toBe(200);
		await rename(orig, moved);
		await rename(moved, orig);
		expectError(await later.get('/api/pages'), 401, 'unauthorized');
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		// Deleted and made again under the same name: no earlier token reaches it.
		expectOk(await h.admin.delete('/api/tenant', { data: { id: orig } }));
		expectOk(await h.admin.post('/api/tenant', { id: orig }));
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		expectError(await later.get('/api/pages'), 401, 'unauthorized');
	});

	it('answers 404 for an unknown old_id', async () => {
		expectError(
			await h.admin.put('/api/tenant', { old_id: uniqueId('ghost'), id: uniqueId('x') }),
			404,
			'not_found',
		);
	});

	it('answers 409 when the new id is taken', async () => {
		const a = await createTenant(h);
		const b = await createTenant(h);
		expectError(await h.admin.put('/api/tenant', { old_id: a.id, id: b.id }), 409, 'conflict');
		// nothing moved
		expect((await a.api.get('/api/pages')).status).toBe(200);
	});

	it('validates old_id, id and fqdn together', async () => {
		const res = await h.admin.put('/api/tenant', {
			old_id: 'Bad Old',
			id: 'BAD ID',
			fqdn: 'no way',
		});
		const fields = detailFields(expectError(res, 400, 'validation_failed'));
		expect(fields).toEqual(expect.arrayContaining(['old_id', 'id', 'fqdn']));
	});
});

describe('DELETE /api/tenant', () => {
	it('deletes a tenant; its tokens answer 401 and its id is free again', async () => {
		const t = await createTenant(h);
		await createPage(t, '/gone');
		const res = await h.admin.delete('/api/tenant', { data: { id: t.id } });
		expect(res.status).toBe(200);
		expect(res.data).toEqual({ message: 'Tenant deleted successfully.' });

		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
		expectError(await h.admin.post('/api/tenant/token', { id: t.id }), 404, 'not_found');

		// recreated under the same id: no data of the old one
		const again = await createTenant(h, t.id);
		const list = expectOk(await again.api.get('/api/pages'));
		expect(list.data).toEqual([]);
		expect(list.meta.total).toBe(0);
		// the old token does not come back with the id
		expectError(await t.api.get('/api/pages'), 401, 'unauthorized');
	});

	it('answers 404 for an unknown id and 400 for a missing id', async () => {
		expectError(
			await h.admin.delete('/api/tenant', { data: { id: uniqueId('ghost') } }),
			404,
			'not_found',
		);
		expect(
			detailFields(
				expectError(await h.admin.delete('/api/tenant', { data: {} }), 400, 'validation_failed'),
			),
		).toContain('id');
	});
});
