import { LRUCache } from 'lru-cache';

/**
 * Bytes an entry costs beyond its key and value: the cache's map entry and list slots, the tenant
 * index's set entry (measured on Node 20: ~100-150 bytes an entry with both).
 */
const ENTRY_OVERHEAD_BYTES = 160;

/** The bytes a key string holds at most (V8 stores a string with any non-Latin-1 character in UTF-16). */
export function keyBytes(key: string): number {
	return key.length * 2;
}

/**
 * Per-tenant entries within one budget of bytes, keys and bookkeeping included, least recently used
 * first out. Every distinct filter a client sends makes a key, so a cache keyed by request values
 * must count its keys too or a stream of distinct reads grows it without end. `forget` drops one
 * tenant's entries (its pages changed).
 */
export class TenantLru<V extends object | number> {
	private readonly cache: LRUCache<string, { tenantPk: number; value: V }> | undefined;
	private readonly keysByTenant = new Map<number, Set<string>>();

	/** budgetBytes 0 keeps nothing; an entry over maxEntryBytes (default the whole budget) is not kept. */
	constructor(budgetBytes: number, sizeOf: (value: V) => number, maxEntryBytes = budgetBytes) {
		if (budgetBytes <= 0) return;
		this.cache = new LRUCache<string, { tenantPk: number; value: V }>({
			maxSize: budgetBytes,
			maxEntrySize: Math.max(1, maxEntryBytes),
			sizeCalculation: (entry, key) => ENTRY_OVERHEAD_BYTES + keyBytes(key) + sizeOf(entry.value),
			dispose: (entry, key, reason) => {
				// A replaced value keeps its key.
				if (reason === 'set') return;
				const keys = this.keysByTenant.get(entry.tenantPk);
				keys?.delete(key);
				if (keys?.size === 0) this.keysByTenant.delete(entry.tenantPk);
			},
		});
	}

	private static key(tenantPk: number, key: string): string {
		return `${tenantPk}\u0000${key}`;
	}

	get(tenantPk: number, key: string): V | undefined {
		return this.cache?.get(TenantLru.key(tenantPk, key))?.value;
	}

	set(tenantPk: number, key: string, value: V): void {
		if (!this.cache) return;
		const full = TenantLru.key(tenantPk, key);
		this.cache.set(full, { tenantPk, value });
		// Not kept (over maxEntryBytes): nothing to index.
		if (!this.cache.has(full)) return;
		let keys = this.keysByTenant.get(tenantPk);
		if (!keys) {
			keys = new Set();
			this.keysByTenant.set(tenantPk, keys);
		}
		keys.add(full);
	}

	forget(tenantPk: number): void {
		const keys = this.keysByTenant.get(tenantPk);
		if (!keys || !this.cache) return;
		for (const key of [...keys]) this.cache.delete(key);
		this.keysByTenant.delete(tenantPk);
	}

	clear(): void {
		this.cache?.clear();
		this.keysByTenant.clear();
	}

	/** Bytes held by the estimate above (for tests and diagnostics). */
	get bytes(): number {
		return this.cache?.calculatedSize ?? 0;
	}

	/** Entries held. */
	get size(): number {
		return this.cache?.size ?? 0;
	}
}
