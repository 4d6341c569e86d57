/**
 * GET /api/tenants (extension, central surface): the tenants ordered by id, paged like the page
 * listing, filtered by a fragment of the id matched literally (LIKE's `%` and `_` are plain
 * characters). This file's server holds only the tenants created here, so every answer is exact.
 */
import {
	type Harness,
	client,
	createTenant,
	detailFields,
	expectError,
	expectNoSecrets,
	expectOk,
	useServer,
} from '../helpers';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Created in this order (not the id order) to show the listing sorts. */
const IDS = [
	'zeta',
	'acme',
	'acme-shop',
	'acme_shop',
	'acmexshop',
	'9lives',
	'beta',
	'acme-2',
	'a_b',
	'ab',
	'axb',
	'm-1',
];
/** IDS in SQLite's binary order: digits, then `-`, `_`, letters (a prefix before its extensions). */
const SORTED = [
	'9lives',
	'a_b',
	'ab',
	'acme',
	'acme-2',
	'acme-shop',
	'acme_shop',
	'acmexshop',
	'axb',
	'beta',
	'm-1',
	'zeta',
];

let h: Harness;
useServer((started) => (h = started));

beforeAll(async () => {
	for (const id of IDS) {
		const body = id === 'acme' ? { id, fqdn: 'www.acme.example' } : { id };
		expectOk(await h.admin.post('/api/tenant', body));
	}
});

async function list(params: Record<string, string | number> = {}) {
	return expectOk(await h.admin.get('/api/tenants', { params }));
}

/** Every id the listing gives for `search`, following every page. */
async function allIds(search?: string, perPage = 5): Promise<string[]> {
	const ids: string[] = [];
	for (let page = 1; ; page++) {
		const body = await list({
			per_page: perPage,
			page,
			...(search === undefined ? {} : { search }),
		});
		ids.push(...body.data.map((t: { id: string }) => t.id));
		if (page >= body.meta.last_page) return ids;
	}
}

describe('GET /api/tenants', () => {
	it('lists {id, fqdn, created_at} ordered by id, 20 a page by default', async () => {
		const body = await list();
		expect(Object.keys(body).sort()).toEqual(['data', 'meta']);
		expect(body.meta).toEqual({ page: 1, per_page: 20, total: IDS.length, last_page: 1 });
		expect(body.data.map((t: { id: string }) => t.id)).toEqual(SORTED);
		for (const tenant of body.data) {
			expect(Object.keys(tenant).sort()).toEqual(['created_at', 'fqdn', 'id']);
			expect(tenant.created_at).toMatch(ISO);
		}
		expect(body.data.find((t: { id: string }) => t.id === 'acme').fqdn).toBe('www.acme.example');
		expect(body.data.find((t: { id: string }) => t.id === 'beta').fqdn).toBeNull();
	});

	it('pages: meta counts every match, pages follow each other in order, past the last is empty', async () => {
		const first = await list({ per_page: 5 });
		expect(first.meta).toEqual({ page: 1, per_page: 5, total: 12, last_page: 3 });
		expect(first.data.map((t: { id: string }) => t.id)).toEqual(SORTED.slice(0, 5));

		const second = await list({ per_page: 5, page: 2 });
		expect(second.meta).toEqual({ page: 2, per_page: 5, total: 12, last_page: 3 });
		expect(second.data.map((t: { id: string }) => t.id)).toEqual(SORTED.slice(5, 10));

		const last = await list({ per_page: 5, page: 3 });
		expect(last.data.map((t: { id: string }) => t.id)).toEqual(SORTED.slice(10));

		const beyond = await list({ per_page: 5, page: 4 });
		expect(beyond.data).toEqual([]);
		expect(beyond.meta).toEqual({ page: 4, per_page: 5, total: 12, last_page: 3 });

		expect(await allIds(undefined, 1)).toEqual(SORTED);
		expect((await list({ per_page: 100 })).meta).toEqual({
			page: 1,
			per_page: 100,
			total: 12,
			last_page: 1,
		});
	});

	it('search: tenants whose id contains the fragment, paged like the rest', async () => {
		expect(await allIds('acme', 2)).toEqual([
			'acme',
			'acme-2',
			'acme-shop',
			'acme_shop',
			'acmexshop',
		]);
		expect((await list({ search: 'acme', per_page: 2, page: 3 })).meta).toEqual({
			page: 3,
			per_page: 2,
			total: 5,
			last_page: 3,
		});
		expect(await allIds('shop')).toEqual(['acme-shop', 'acme_shop', 'acmexshop']);
		expect(await allIds('-')).toEqual(['acme-2', 'acme-shop', 'm-1']);
		expect(await allIds('9lives')).toEqual(['9lives']);
		expect(await allIds('nobody')).toEqual([]);
		expect((await list({ search: 'nobody' })).meta).toEqual({
			page: 1,
			per_page: 20,
			total: 0,
			last_page: 1,
		});
	});

	it('search: `_` is an underscore, not any one character', async () => {
		expect(await allIds('_')).toEqual(['a_b', 'acme_shop']);
		expect(await allIds('a_b')).toEqual(['a_b']);
		expect(await allIds('acme_shop')).toEqual(['acme_shop']);
		expect((await list({ search: '_' })).meta.total).toBe(2);
	});

	it('search: `%` and `\\` are plain characters (no tenant id has them)', async () => {
		for (const search of ['%', '%%', 'a%b', 'acme%', '\\', '\\%', '\\_', 'a\\_b']) {
			const body = await list({ search });
			expect({ search, data: body.data, total: body.meta.total }).toEqual({
				search,
				data: [],
				total: 0,
			});
		}
	});

	it('search: ignores case (ids are lower case; SQLite LIKE folds ASCII)', async () => {
		expect(await allIds('ACME-S')).toEqual(['acme-shop']);
		expect(await allIds('A_B')).toEqual(['a_b']);
	});

	it('an empty search lists every tenant', async () => {
		const body = await list({ search: '' });
		expect(body.meta.total).toBe(IDS.length);
		expect(body.data.map((t: { id: string }) => t.id)).toEqual(SORTED);
	});

	it('follows a rename and a delete', async () => {
		expectOk(await h.admin.put('/api/tenant', { old_id: 'zeta', id: 'omega' }));
		// 'zeta' was last; 'omega' comes after 'm-1', so it is last too.
		expect(await allIds()).toEqual([...SORTED.slice(0, -1), 'omega']);
		expectOk(await h.admin.delete('/api/tenant', { data: { id: 'omega' } }));
		expect(await allIds()).toEqual(SORTED.slice(0, -1));
		expectOk(await h.admin.post('/api/tenant', { id: 'zeta' }));
		expect(await allIds()).toEqual(SORTED);
	});

	it('per_page over 100: 400 naming per_page', async () => {
		const res = await h.admin.get('/api/tenants', { params: { per_page: 101 } });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual(['per_page']);
	});

	it.each([
		['per_page', 0],
		['per_page', 'ten'],
		['page', 0],
		['page', '1000000001'],
		['search', 'a'.repeat(64)],
	])('%s=%p: 400 naming it', async (name, value) => {
		const res = await h.admin.get('/api/tenants', { params: { [name]: value } });
		expect(detailFields(expectError(res, 400, 'validation_failed'))).toEqual([name]);
	});

	it('no token: 401 unauthorized', async () => {
		expectError(await h.anon.get('/api/tenants'), 401, 'unauthorized');
	});

	it('an unknown token: 401 unauthorized', async () => {
		expectError(
			await client(h.url, 'sat_' + 'x'.repeat(43)).get('/api/tenants'),
			401,
			'unauthorized',
		);
	});

	it("a tenant's token: 403 forbidden, and no tenant ids in the answer", async () => {
		const t = await createTenant(h, 'lister');
		const res = await t.api.get('/api/tenants');
		const body = expectError(res, 403, 'forbidden');
		expectNoSecrets(res.headers);
		expect(JSON.stringify(body)).not.toMatch(/acme|zeta|9lives/);
		expectOk(await h.admin.delete('/api/tenant', { data: { id: 'lister' } }));
	});
});
