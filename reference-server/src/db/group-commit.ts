import type { SqliteDatabase } from './open';

/**
 * Group commit: the writes of every request handled in one turn of the event loop go into one
 * transaction, committed at the end of that turn (setImmediate), and each of those requests is
 * answered only once the commit is done (plugins/commit.ts). A commit costs far more than a row on
 * this store (WAL pages written per transaction: ~50 us against ~10 us for the insert itself, see
 * docs/performance.md), and a page create used to commit twice (the page, then its idempotency
 * record). Durability is unchanged: nothing is answered before it is committed.
 *
 * Statements run outside a group (a handler that resumed after awaiting I/O, the delivery worker on
 * its timer) autocommit as before, or join a group that is open at that moment. Transactions made with
 * db.transaction() inside a group become savepoints: they stay atomic, and a failed one rolls back
 * alone. If SQLite rolls the whole transaction back by itself (disk full, I/O error), every request of
 * the group is told so and answered 500; nothing of the group was kept.
 */
export interface GroupCommit {
	/** Opens a group unless one is open; resolves when the group commits, rejects if it does not. */
	join(): Promise<void>;
	/** The open group's outcome, or undefined when no group is open. */
	pending(): Promise<void> | undefined;
	/** Commits the open group now (closing the database). */
	flush(): void;
}

interface Group {
	promise: Promise<void>;
	resolve: () => void;
	reject: (error: Error) => void;
}

export function createGroupCommit(db: SqliteDatabase): GroupCommit {
	let open: Group | undefined;

	function settle(group: Group): void {
		if (open !== group) return;
		open = undefined;
		if (!db.inTransaction) {
			group.reject(
				new Error('The database rolled the transaction back; nothing of it was stored.'),
			);
			return;
		}
		try {
			db.exec('COMMIT');
			group.resolve();
		} catch (error) {
			if (db.inTransaction) db.exec('ROLLBACK');
			group.reject(error as Error);
		}
	}

	function begin(): Group {
		db.exec('BEGIN IMMEDIATE');
		let resolve!: () => void;
		let reject!: (error: Error) => void;
		const promise = new Promise<void>((res, rej) => {
			resolve = res;
			reject = rej;
		});
		// Callers that never await the outcome (a request that failed meanwhile) must not raise an
		// unhandled rejection; those that await it still see the error.
		promise.catch(() => undefined);
		const group: Group = { promise, resolve, reject };
		setImmediate(() => settle(group));
		return group;
	}

	return {
		join() {
			// The transaction of the open group is gone (SQLite rolled it back): fail it, start afresh.
			if (open && !db.inTransaction) settle(open);
			open ??= begin();
			return open.promise;
		},
		pending: () => open?.promise,
		flush() {
			if (open) settle(open);
		},
	};
}
