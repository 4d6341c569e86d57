/**
 * Work on many tenants' sites at once, each to the end whatever the others do, and the failures
 * told per tenant in the order the tenants were given.
 */
import { runWindow } from '../shared/window';

/** Tenants registered with (or taken off) at once: the service is asked a few times per tenant. */
const REGISTRATION_CONCURRENCY = 8;

/** What failed for whom. */
export interface TenantFailure {
	tenantId: string;
	reason: string;
}

/** Runs `work` for each entry, REGISTRATION_CONCURRENCY at a time; returns the results and the failures. */
export async function forEachTenant<T, R>(
	entries: T[],
	tenantOf: (entry: T) => string,
	work: (entry: T) => Promise<R>,
): Promise<{ done: R[]; failures: TenantFailure[] }> {
	const done: R[] = [];
	const failed = new Map<number, TenantFailure>();
	await runWindow(0, entries.length, REGISTRATION_CONCURRENCY, async (index) => {
		try {
			done.push(await work(entries[index]));
		} catch (error) {
			failed.set(index, { tenantId: tenantOf(entries[index]), reason: (error as Error).message });
		}
	});
	const failures = [...failed.entries()].sort(([a], [b]) => a - b).map(([, failure]) => failure);
	return { done, failures };
}

export function describeFailures(failures: TenantFailure[]): string {
	return failures.map(({ tenantId, reason }) => `"${tenantId}": ${reason}`).join('; ');
}
