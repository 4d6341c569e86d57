/**
 * Deep listings seek from the marks of db/page-positions.ts instead of stepping over every row: the
 * answers must be exactly those of a plain `LIMIT ? OFFSET ?` through any mix of creates, default and
 * permanent deletes, url reuse, filters and rolled-back transactions.
 */
import fc from 'fast-check';

import { createPageRepository, type NewPage } from '../../src/db/pages';
import { openDatabase } from '../../src/db/open';
import { PagePositions, seek, STRIDE } from '../../src/db/page-positions';

const TENANTS = [1, 2];
const page = (url: string, locale: string, draft = false): NewPage => ({
	url,
	name: url,
	locale,
	meta_title: null,
	meta_description: null,
	draft,
});

function setUp(initial: number) {
	const db = openDatabase(':memory:');
	for (const id of TENANTS)
		db.prepare(
			"INSERT INTO tenants (id, fqdn, created_at, updated_at) VALUES (?, NULL, 'x', 'x')",
		).run(`t${id}`);
	const pages = createPageRepository(db);
	db.transaction(() => {
		for (let i = 0; i < initial; i++)
			for (const tenant of TENANTS)
				pages.create(tenant, page(`/p${i}`, i % 3 === 0 ? 'de' : 'en', i % 7 === 0));
	})();
	/** What a plain OFFSET query answers: the truth the marks must reproduce. */
	const plain = (
		tenantPk: number,
		filter: { locale?: string; draft?: boolean },
		limit: number,
		offset: number,
	) =>
		db
			.prepare(
				`SELECT url FROM pages WHERE tenant_pk = ? AND deleted_at IS NULL${filter.locale ? ' AND locale = ?' : ''}${filter.draft !== undefined ? ' AND draft = ?' : ''} ORDER BY id LIMIT ? OFFSET ?`,
			)
			.pluck()
			.all(
				tenantPk,
				...(filter.locale ? [filter.locale] : []),
				...(filter.draft !== undefined ? [filter.draft ? 1 : 0] : []),
				limit,
				offset,
			) as string[];
	return { db, pages, plain };
}

const write = fc.oneof(
	fc.record({
		kind: fc.constant('create' as const),
		n: fc.integer({ min: 0, max: 6000 }),
		locale: fc.constantFrom('en', 'de'),
	}),
	fc.record({
		kind: fc.constant('delete' as const),
		n: fc.integer({ min: 0, max: 6000 }),
		permanently: fc.boolean(),
	}),
	fc.record({ kind: fc.constant('rolledBack' as const), n: fc.integer({ min: 0, max: 6000 }) }),
);
const read = fc.record({
	tenant: fc.constantFrom(...TENANTS),
	filter: fc.constantFrom({}, { locale: 'en' }, { locale: 'de' }, { draft: false }),
	limit: fc.constantFrom(1, 20, 100),
	offset: fc.oneof(
		fc.integer({ min: 0, max: 5200 }),
		fc.constantFrom(STRIDE - 1, STRIDE, STRIDE + 1, 2 * STRIDE, 3 * STRIDE - 1),
	),
});

describe('deep listings', () => {
	it('equal a plain OFFSET query through creates, deletes, url reuse and rolled-back deletes', () => {
		const { db, pages, plain } = setUp(5000);
		fc.assert(
			fc.property(fc.array(fc.oneof(write, read), { minLength: 5, maxLength: 40 }), (steps) => {
				for (const step of steps) {
					if ('kind' in step) {
						const tenant = TENANTS[step.n % TENANTS.length];
						if (step.kind === 'create') pages.create(tenant, page(`/p${step.n}`, step.locale));
						else if (step.kind === 'delete') pages.delete(tenant, `/p${step.n}`, step.permanently);
						else {
							// A delete that rolls back: marks made meanwhile must not survive it wrongly.
							db.exec('BEGIN');
							pages.delete(tenant, `/p${step.n}`, false);
							pages.list(tenant, {}, 20, 3 * STRIDE);
							db.exec('ROLLBACK');
						}
						continue;
					}
					const got = pages
						.list(step.tenant, step.filter, step.limit, step.offset)
						.pages.map((p) => p.url);
					expect(got).toEqual(plain(step.tenant, step.filter, step.limit, step.offset));
				}
			}),
			{ numRuns: 60 },
		);
		db.close();
	});

	it('a delete near the start moves every deep page by one; the next listing shows it', () => {
		const { db, pages, plain } = setUp(3000);
		const before = pages.list(1, {}, 5, 2 * STRIDE).pages.map((p) => p.url);
		expect(before).toEqual(plain(1, {}, 5, 2 * STRIDE));
		pages.delete(1, '/p1', false);
		const after = pages.list(1, {}, 5, 2 * STRIDE).pages.map((p) => p.url);
		expect(after).toEqual(plain(1, {}, 5, 2 * STRIDE));
		expect(after[0]).toBe(before[1]);
		db.close();
	});
});

describe('PagePositions', () => {
	it('keeps at most its number of (tenant, filter) entries, least recently used out first', () => {
		const positions = new PagePositions(2);
		positions.set(1, 'a', [10]);
		positions.set(1, 'b', [20]);
		expect(positions.get(1, 'a')).toEqual([10]);
		positions.set(2, 'a', [30]);
		expect(positions.size).toBe(2);
		expect(positions.get(1, 'b')).toBeUndefined();
		positions.forget(1);
		expect(positions.get(1, 'a')).toBeUndefined();
		expect(positions.get(2, 'a')).toEqual([30]);
	});

	it('seek starts after the last mark at or before the offset', () => {
		expect(seek(undefined, 2500)).toEqual({ skip: 2500 });
		expect(seek([], 2500)).toEqual({ skip: 2500 });
		expect(seek([7, 9], 999)).toEqual({ skip: 999 });
		expect(seek([7, 9], STRIDE)).toEqual({ afterId: 7, skip: 0 });
		expect(seek([7, 9], 2 * STRIDE + 5)).toEqual({ afterId: 9, skip: 5 });
		expect(seek([7, 9], 9 * STRIDE)).toEqual({ afterId: 9, skip: 7 * STRIDE });
	});
});
