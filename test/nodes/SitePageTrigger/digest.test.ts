/**
 * The trigger's digest (an invertible Bloom lookup table): the difference of two page sets is read
 * back exactly, whatever the sets' size, and a difference too large for the cells says so.
 */
import fc from 'fast-check';

import { PageDigest, type PageKey } from '../../../nodes/SitePageTrigger/digest';
import { DIGEST_CELLS } from '../../../nodes/SitePageTrigger/state';

const page = (i: number, name = `Page ${i}`): PageKey => ({ url: `/p/${i}`, name, locale: 'en' });
const urls = (keys: PageKey[]) => keys.map((key) => key.url).sort();

describe('page digest', () => {
	test('the difference of two large sets comes back exactly, through the stored form', () => {
		const before = Array.from({ length: 20_000 }, (_, i) => page(i));
		const now = [
			...before.slice(0, 19_900),
			...Array.from({ length: 150 }, (_, i) => page(50_000 + i)),
		];
		const stored = JSON.parse(JSON.stringify(PageDigest.of(before, DIGEST_CELLS).toStored()));
		const difference = PageDigest.fromStored(stored)
			.subtract(PageDigest.of(now, DIGEST_CELLS))
			.decode();
		expect(difference.complete).toBe(true);
		expect(urls(difference.onlyInFirst)).toEqual(urls(before.slice(19_900)));
		expect(urls(difference.onlyInSecond)).toEqual(urls(now.slice(19_900)));
		expect(difference.onlyInFirst[0]).toEqual(
			expect.objectContaining({ name: expect.stringMatching(/^Page /), locale: 'en' }),
		);
	});

	test('any difference within the capacity is read back exactly (property)', () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 400 }),
				fc.uniqueArray(fc.integer({ min: 0, max: 5_000 }), { maxLength: 400 }),
				(a, b) => {
					const before = a.map((i) => page(i));
					const now = b.map((i) => page(i, i % 7 === 0 ? `Renamed ${i}` : `Page ${i}`));
					const difference = PageDigest.of(before, 96).subtract(PageDigest.of(now, 96)).decode();
					const keyOf = (key: PageKey) => JSON.stringify(key);
					const inNow = new Set(now.map(keyOf));
					const inBefore = new Set(before.map(keyOf));
					const expectedFirst = before
						.filter((key) => !inNow.has(keyOf(key)))
						.map(keyOf)
						.sort();
					const expectedSecond = now
						.filter((key) => !inBefore.has(keyOf(key)))
						.map(keyOf)
						.sort();
					if (difference.complete) {
						expect(difference.onlyInFirst.map(keyOf).sort()).toEqual(expectedFirst);
						expect(difference.onlyInSecond.map(keyOf).sort()).toEqual(expectedSecond);
					} else {
						// Only a difference larger than the cells can fail to come back whole.
						expect(expectedFirst.length + expectedSecond.length).toBeGreaterThan(96 * 0.5);
					}
					// Whatever is read back is right.
					for (const key of difference.onlyInFirst) expect(expectedFirst).toContain(keyOf(key));
					for (const key of difference.onlyInSecond) expect(expectedSecond).toContain(keyOf(key));
				},
			),
			{ numRuns: 60 },
		);
	});

	test('a difference larger than the cells reports that it is incomplete', () => {
		const before = Array.from({ length: 2_000 }, (_, i) => page(i));
		const difference = PageDigest.of(before, DIGEST_CELLS)
			.subtract(PageDigest.of([], DIGEST_CELLS))
			.decode();
		expect(difference.complete).toBe(false);
		expect(difference.onlyInFirst.length).toBeLessThan(2_000);
	});

	test('a digest of 100,000 pages keeps to its cells', () => {
		const digest = PageDigest.of(
			Array.from({ length: 100_000 }, (_, i) => page(i)),
			DIGEST_CELLS,
		);
		expect(JSON.stringify(digest.toStored()).length).toBeLessThan(40 * 1024);
	});
});
