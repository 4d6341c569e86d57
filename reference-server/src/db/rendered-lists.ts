import { TenantLru } from './tenant-lru';

/** A Buffer object's own cost beyond its bytes (measured on Node 20). */
const BUFFER_OVERHEAD_BYTES = 96;

/**
 * Answers of page listings, rendered (JSON as UTF-8 bytes: sent as they are, with no re-encoding per
 * answer) per tenant, within a budget of bytes that counts keys (every distinct filter value a client
 * sends is one) as well as bodies, least recently used first out. A listing costs ~2 us per row in
 * SQLite on the bench machine plus its serialisation (20 rows: ~60-75 us, most of a GET), while the
 * pages of a tenant change far less often than they are listed (a site's navigation, a workflow
 * polling its pages). The page repository drops a tenant's entries on every write to its pages and
 * stores nothing while a transaction is open (its writes could still be rolled back). An answer over
 * a quarter of the budget is not kept.
 */
export class RenderedListCache extends TenantLru<Buffer> {
	/** budgetBytes 0 turns the cache off. */
	constructor(budgetBytes: number) {
		super(budgetBytes, (body) => body.length + BUFFER_OVERHEAD_BYTES, Math.floor(budgetBytes / 4));
	}
}
