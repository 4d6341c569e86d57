/**
 * Who is let in: every secured endpoint (checked against the OpenAPI document) with no token, a
 * garbage token, an expired token, a revoked token, the other surface's token and the other tenant's
 * token. Refusals carry the right status and code, the contract's error body and no token, and change
 * nothing on the server (the whole database is compared before and after). The other tenant's token
 * is let in to its own site only: the victim's data stays as it was and its keys answer 404.
 */
import {
	type Harness,
	type Tenant,
	client,
	createPage,
	createTenant,
	expectError,
	expectNoSecrets,
	expectOk,
	issueToken,
	randomToken,
	sleep,
	useServer,
} from '../helpers';
import {
	ENDPOINTS,
	documentedOperations,
	secured,
	sendTo,
	type Endpoint,
} from '../helpers/endpoints';

let h: Harness;
let victim: Tenant;
let other: Tenant;
const tokens: Record<string, string> = {};

useServer((started) => (h = started), { enableVariables: true });

beforeAll(async () => {
	victim = await createTenant(h, 'victim');
	other = await createTenant(h, 'other');
	// The tenant the central calls would rename, delete or mint for, if they were let in.
	expectOk(await h.admin.post('/api/tenant', { id: 'probe-old' }));

	// The victim's site: a page with content, settings, a variable, a notification, an asset.
	await createPage(victim, '/victim');
	expectOk(
		await victim.api.put('/api/content', {
			url: '/victim',
			templates: [{ type: 'text', text: 'original' }],
		}),
	);
	expectOk(await victim.api.post('/api/settings', { google_code: 'G-VICTIM' }));
	expectOk(await victim.api.put('/api/variables', { key: 'secret-key', value: 'secret-value' }));
	expectOk(
		await victim.api.post('/api/notifications', { id: 'job', message: 'running', status: 'info' }),
	);

	// Revoked: issued, then the tenant's tokens rotated. Expired: issued after the rotation, 1 s to live.
	tokens.revoked = await issueToken(h, 'victim');
	const rotated = expectOk(
		await h.admin.post('/api/tenant/token', { id: 'victim', revoke_previous: true }),
	);
	victim = { ...victim, token: rotated.token, api: client(h.url, rotated.token) };
	tokens.expired = await issueToken(h, 'victim', { expires_in: 1 });
	tokens.garbage = randomToken('garbage');
	await sleep(1100);
	// Sanity: the victim's current token works, the expired one no longer does.
	expectOk(await victim.api.get('/api/pages'));
	expectError(await client(h.url, tokens.expired).get('/api/pages'), 401, 'unauthorized');
});

/** Everything the server holds (idempotency records aside), to prove a refused call changed nothing. */
function snapshot(tenantId?: string): string {
	const db = h.server.app.site.store.db;
	const pk = tenantId ? (h.server.app.site.store.tenants.findById(tenantId)?.pk ?? -1) : undefined;
	const tables = [
		'tenants',
		'tokens',
		'pages',
		'settings',
		'notifications',
		'variables',
		'assets',
		'submissions',
		'deliveries',
	];
	const out: Record<string, unknown[]> = {};
	for (const table of tables) {
		const where =
			pk === undefined ? '' : table === 'tenants' ? ' WHERE pk = ?' : ' WHERE tenant_pk = ?';
		const statement = db.prepare(`SELECT * FROM ${table}${where}`);
		out[table] = pk === undefined ? statement.all() : statement.all(pk);
	}
	return JSON.stringify(out);
}

const label = (e: Endpoint) => `${e.method} ${e.path}`;
const refusals: string[] = [];

test('the list of endpoints covers every operation of the OpenAPI document, with the right security', async () => {
	const documented = await documentedOperations(h);
	expect([...documented.keys()].sort()).toEqual(ENDPOINTS.map(label).sort());
	for (const endpoint of ENDPOINTS) {
		const expected = { central: ['adminToken'], tenant: ['tenantToken'], public: [] }[
			endpoint.surface
		];
		expect({ endpoint: label(endpoint), security: documented.get(label(endpoint)) }).toEqual({
			endpoint: label(endpoint),
			security: expected,
		});
	}
});

describe.each([
	['no token', (): string | undefined => undefined, 401, 'unauthorized'],
	['an empty bearer', (): string | undefined => 'Bearer ', 401, 'unauthorized'],
	['a garbage token', (): string | undefined => `Bearer ${tokens.garbage}`, 401, 'unauthorized'],
	['an expired token', (): string | undefined => `Bearer ${tokens.expired}`, 401, 'unauthorized'],
	['a revoked token', (): string | undefined => `Bearer ${tokens.revoked}`, 401, 'unauthorized'],
	[
		'a token without the Bearer scheme',
		(): string | undefined => victim.token,
		401,
		'unauthorized',
	],
] as const)('%s', (_name, authorization, status, code) => {
	test.each(secured().map((e) => [label(e), e] as const))(
		`%s is refused with ${status}, and nothing changes`,
		async (_l, endpoint) => {
			const before = snapshot();
			const res = await sendTo(h, endpoint, { authorization: authorization() });
			expectError(res, status, code);
			expectNoSecrets(res.headers);
			expect(snapshot()).toBe(before);
			refusals.push(label(endpoint));
		},
	);
});

describe("the other surface's token", () => {
	test.each(secured().map((e) => [label(e), e] as const))(
		'%s is refused with 403 forbidden, and nothing changes',
		async (_l, endpoint) => {
			const token = endpoint.surface === 'central' ? victim.token : h.adminToken;
			const before = snapshot();
			const res = await sendTo(h, endpoint, { authorization: `Bearer ${token}` });
			expectError(res, 403, 'forbidden');
			expect(snapshot()).toBe(before);
			refusals.push(label(endpoint));
		},
	);
});

describe("the other tenant's token", () => {
	const tenantEndpoints = ENDPOINTS.filter((e) => e.surface === 'tenant');

	test.each(tenantEndpoints.map((e) => [label(e), e] as const))(
		"%s acts on its own site only: the victim's data is untouched",
		async (_l, endpoint) => {
			const before = snapshot('victim');
			const res = await sendTo(h, endpoint, { authorization: `Bearer ${other.token}` });
			expect(res.status).toBeLessThan(500);
			expectNoSecrets(res.json);
			expect(snapshot('victim')).toBe(before);
			// Nothing of the victim's shows through (a 404 may name the url the caller itself sent).
			expect(res.text).not.toMatch(/G-VICTIM|secret-value|original|running/);
			if (res.status < 300) expect(res.text).not.toContain('/victim');
		},
	);

	test.each([
		['DELETE', '/api/page', { url: '/victim' }],
		['DELETE', '/api/page', { url: '/victim', permanently: 1 }],
		['PUT', '/api/content', { url: '/victim', templates: [] }],
		['DELETE', '/api/variables', { key: 'secret-key' }],
	] as const)("%s %s on the victim's key %j answers 404 not_found", async (method, path, body) => {
		const endpoint = ENDPOINTS.find((e) => e.method === method && e.path === path)!;
		const before = snapshot('victim');
		const res = await sendTo(h, endpoint, {
			authorization: `Bearer ${other.token}`,
			body: JSON.stringify(body),
			contentType: 'application/json',
		});
		expectError(res, 404, 'not_found');
		expect(snapshot('victim')).toBe(before);
	});

	test('reads show the own site only', async () => {
		expect((await other.api.get('/api/pages', { params: { url: '/victim' } })).data.data).toEqual(
			[],
		);
		expect(
			(await other.api.get('/api/variables')).data.data.map((v: { key: string }) => v.key),
		).not.toContain('secret-key');
		expect((await other.api.get('/api/settings')).data.settings.google_code).not.toBe('G-VICTIM');
		expect((await other.api.get('/api/notifications')).data.data ?? []).not.toContainEqual(
			expect.objectContaining({ message: 'running' }),
		);
	});

	test("the victim's site is exactly as it was set up", async () => {
		const pages = (await victim.api.get('/api/pages')).data.data;
		expect(pages.map((p: { url: string; templates: unknown }) => [p.url, p.templates])).toEqual([
			['/victim', [{ type: 'text', text: 'original' }]],
		]);
		expect((await victim.api.get('/api/variables')).data.data).toEqual([
			{ key: 'secret-key', value: 'secret-value' },
		]);
		expect((await victim.api.get('/api/settings')).data.settings).toMatchObject({
			google_code: 'G-VICTIM',
			contact_form_webhook_url: null,
		});
		expect(expectOk(await h.admin.post('/api/tenant/token', { id: 'probe-old' })).tenant_id).toBe(
			'probe-old',
		);
	});
});

afterAll(() => {
	console.log(
		`[reliability] security: auth matrix: refused_requests=${refusals.length} endpoints=${secured().length} token_kinds=7`,
	);
});
