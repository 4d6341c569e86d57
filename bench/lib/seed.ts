/**
 * Pages seeded fast and honestly: the server child inserts them with the server's own page
 * repository in one transaction (200k creates over HTTP take minutes), and the rows that seed this
 * way then list them over HTTP. Both halves of the "seed" message are here.
 */
import type { Store } from '../../reference-server/src/db';
import type { ChildMessage } from './children';
import type { Site } from './context';

/** In the server child: answers a "seed" message with "seeded" (or "error"). */
export function answerSeed(store: Store, message: ChildMessage) {
	if (message.type !== 'seed') return;
	try {
		const tenant = store.tenants.findById(String(message.tenant));
		if (!tenant) throw new Error(`seed: no tenant ${String(message.tenant)}`);
		const count = Number(message.count);
		const started = Date.now();
		store.db.transaction(() => {
			for (let i = 0; i < count; i++) {
				// What a Page > Create of the bench sends: name, url, locale, nothing else.
				const page = {
					name: `Seeded ${i}`,
					url: `/seeded/${i}`,
					locale: i % 2 ? 'en' : 'de',
					meta_title: null,
					meta_description: null,
					draft: false,
				};
				if (!store.pages.create(tenant.pk, page)) throw new Error(`seed: ${page.url} exists`);
			}
		})();
		process.send?.({ type: 'seeded', tenant: tenant.id, count, ms: Date.now() - started });
	} catch (error) {
		// The parent's next('seeded') fails with this; the server keeps running.
		process.send?.({
			type: 'error',
			message: error instanceof Error ? error.message : String(error),
		});
	}
}

/** In the bench: `count` pages for the existing tenant `tenant` of `site`; returns the time it took. */
export async function seedPages(site: Site, tenant: string, count: number): Promise<number> {
	site.child.send({ type: 'seed', tenant, count });
	const seeded = await site.child.next<{ type: string; tenant: string; count: number; ms: number }>(
		'seeded',
		5 * 60_000,
	);
	if (seeded.tenant !== tenant || seeded.count !== count)
		throw new Error(
			`seeded ${seeded.count} pages of ${seeded.tenant}, asked for ${count} of ${tenant}`,
		);
	return seeded.ms;
}
