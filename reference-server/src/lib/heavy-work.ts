import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Runs long synchronous steps (storing bodies of megabytes) one at a time, each in a turn of the
 * event loop of its own. Eight 10 MB bodies that arrive together would otherwise be stored back to
 * back in one turn, and every other request (a /health probe) would wait for all of them; this way
 * one waits at most for one step. (Checking, parsing and serialising them happens in a JSON worker:
 * plugins/json-body.ts.)
 */
export class HeavyWork {
	private tail: Promise<unknown> = Promise.resolve();

	run<T>(step: () => T): Promise<T> {
		const result = this.tail.then(async () => {
			await nextTurn();
			return step();
		});
		this.tail = result.catch(() => undefined);
		return result;
	}
}

/** Bodies from this size on are parsed in a JSON worker and stored through HeavyWork; smaller ones at once. */
export const HEAVY_BODY_BYTES = 256 * 1024;

/** One queue for the whole process: the event loop is one too. */
export const heavyWork = new HeavyWork();
