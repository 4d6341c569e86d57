/**
 * Where the deep pages of a listing start. `LIMIT ? OFFSET ?` steps over every row before the
 * offset, even in the index alone (~40 ns a row on the bench machine: page 2,000 of a 200k-page
 * tenant ~10 ms against ~0.3 ms for page 1), so a Return All over n pages costs O(n²). This keeps,
 * per tenant and filter, the id of every STRIDE-th live page in listing order (ascending id); a deep
 * OFFSET then becomes `id > <mark> ... OFFSET <less than STRIDE>`.
 *
 * Why the marks stay right without being rebuilt on every write: ids only grow (AUTOINCREMENT), so
 * a created page joins a listing at its end and moves no row before it; a content update moves none.
 * Only a delete (default or permanent) of a live page moves the rows after it, so the repository
 * drops the tenant's marks on every delete. Marks are built outside transactions only (a rolled-back
 * delete is then merely an early rebuild), at most MAX_ENTRIES (tenant, filter) pairs, least recently
 * used first out.
 */
export const STRIDE = 1000;
const MAX_ENTRIES = 1000;

export class PagePositions {
	/** Key: tenant pk and filter; value: ids of the rows at positions STRIDE, 2·STRIDE, … (1-based). */
	private readonly marks = new Map<string, { tenantPk: number; ids: number[] }>();

	constructor(private readonly maxEntries = MAX_ENTRIES) {}

	private static key(tenantPk: number, filter: string): string {
		return `${tenantPk}\u0000${filter}`;
	}

	get(tenantPk: number, filter: string): number[] | undefined {
		const key = PagePositions.key(tenantPk, filter);
		const entry = this.marks.get(key);
		if (!entry) return undefined;
		// Most recently used last: Map keeps insertion order.
		this.marks.delete(key);
		this.marks.set(key, entry);
		return entry.ids;
	}

	set(tenantPk: number, filter: string, ids: number[]): void {
		const key = PagePositions.key(tenantPk, filter);
		this.marks.delete(key);
		this.marks.set(key, { tenantPk, ids });
		while (this.marks.size > this.maxEntries)
			this.marks.delete(this.marks.keys().next().value as string);
	}

	/** Rows of the tenant's listings moved (a delete): its marks are stale. */
	forget(tenantPk: number): void {
		for (const [key, entry] of this.marks) if (entry.tenantPk === tenantPk) this.marks.delete(key);
	}

	/** (tenant, filter) pairs held (for tests). */
	get size(): number {
		return this.marks.size;
	}
}

/**
 * Where to start reading for `offset`: after the mark at or before it (`afterId`, undefined when no
 * mark helps) and how many rows remain to skip from there.
 */
export function seek(
	marks: number[] | undefined,
	offset: number,
): { afterId?: number; skip: number } {
	const index = Math.min(Math.floor(offset / STRIDE), marks?.length ?? 0);
	if (!marks || index === 0) return { skip: offset };
	return { afterId: marks[index - 1], skip: offset - index * STRIDE };
}
