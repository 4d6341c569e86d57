/**
 * Memory that reads can claim: every distinct filter value a client sends is a key
 * of the listing totals and of the rendered-listing cache. 300,000 distinct `?url=` reads through the
 * page repository (what GET /api/pages runs for each) keep the heap within 32 MB of where it started:
 * both caches are least-recently-used within a budget of bytes that counts their keys.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { openStore } from '../../src/db';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap and buffer bytes in use after a full collection. */
function usedBytes(): number {
	gc();
	gc();
	const usage = process.memoryUsage();
	return usage.heapUsed + usage.arrayBuffers;
}

it('300,000 distinct ?url= reads: heap growth < 32 MB, totals and listings kept within their budgets', () => {
	// The server's default listing budget (--list-cache-mb 16).
	const store = openStore(':memory:', { listCacheBytes: 16 * 1024 * 1024 });
	try {
		store.tenants.create('reader', null);
		const tenant = store.tenants.findById('reader')!;
		for (let i = 0; i < 50; i += 1) {
			store.pages.create(tenant.pk, {
				url: `/p-${i}`,
				name: `P ${i}`,
				locale: 'en',
				meta_title: null,
				meta_description: null,
				draft: false,
			});
		}
		const render = (pages: unknown[], total: number) =>
			JSON.stringify({ data: pages, meta: { page: 1, per_page: 20, total, last_page: 1 } });
		// Warm-up: statements prepared, code compiled.
		for (let i = 0; i < 2_000; i += 1)
			store.pages.listRendered(tenant.pk, { url: `/warm-${i}` }, 20, 0, render);
		const before = usedBytes();
		const started = Date.now();
		for (let i = 0; i < 300_000; i += 1) {
			// Long values, as an attacker would send (the page url allows 2,048 characters).
			store.pages.listRendered(
				tenant.pk,
				{ url: `/missing-${i}-${'x'.repeat(100)}` },
				20,
				0,
				render,
			);
		}
		const growth = usedBytes() - before;
		console.log(
			`[reliability] read memory: reads=300000 heap_growth_mb=${(growth / 1024 / 1024).toFixed(1)} seconds=${((Date.now() - started) / 1000).toFixed(1)}`,
		);
		expect(growth).toBeLessThan(32 * 1024 * 1024);
		// The cache still works: the first page of the tenant is one listing.
		expect(
			JSON.parse(store.pages.listRendered(tenant.pk, {}, 20, 0, render).toString()).meta.total,
		).toBe(50);
	} finally {
		void store.close();
	}
}, 120_000);
