/**
 * Answers of page listings, rendered (JSON as UTF-8 bytes: sent as they are, with no re-encoding per
 * answer) per tenant, within a budget of bytes. A listing
 * costs ~2 us per row in SQLite on the bench machine plus its serialisation (20 rows: ~60-75 us, most
 * of a GET), while the pages of a tenant change far less often than they are listed (a site's
 * navigation, a workflow polling its pages). The page repository drops a tenant's entries on every
 * write to its pages and stores nothing while a transaction is open (its writes could still be rolled
 * back). Over budget, everything is dropped: simple, and a cold listing is only a query.
 */
export class RenderedListCache {
	private readonly byTenant = new Map<number, Map<string, Buffer>>();
	private size = 0;

	/** budgetBytes 0 turns the cache off. */
	constructor(private readonly budgetBytes: number) {}

	get(tenantPk: number, key: string): Buffer | undefined {
		return this.byTenant.get(tenantPk)?.get(key);
	}

	set(tenantPk: number, key: string, body: Buffer): void {
		if (body.length > this.budgetBytes / 4) return;
		if (this.size + body.length > this.budgetBytes) this.clear();
		let entries = this.byTenant.get(tenantPk);
		if (!entries) {
			entries = new Map();
			this.byTenant.set(tenantPk, entries);
		}
		const previous = entries.get(key);
		if (previous !== undefined) this.size -= previous.length;
		entries.set(key, body);
		this.size += body.length;
	}

	forget(tenantPk: number): void {
		const entries = this.byTenant.get(tenantPk);
		if (!entries) return;
		for (const body of entries.values()) this.size -= body.length;
		this.byTenant.delete(tenantPk);
	}

	clear(): void {
		this.byTenant.clear();
		this.size = 0;
	}

	/** Bytes held (for tests and diagnostics). */
	get bytes(): number {
		return this.size;
	}
}
