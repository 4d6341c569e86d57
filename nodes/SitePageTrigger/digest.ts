/**
 * The watched set of pages, remembered in a fixed number of cells whatever the site's size: an
 * invertible Bloom lookup table (Goodrich & Mitzenmacher, "Invertible Bloom Lookup Tables", 2011).
 *
 * Each page's key (its url, name and locale) goes into one cell of each of three sub-tables: the cell
 * counts it, and XORs in a checksum of the key and the key's bytes. Subtracting the table of this
 * poll's pages from the table of the last poll's leaves only the pages in one set but not the other:
 * unchanged pages cancel out, whatever their number. Those few are then read back whole ("peeled"),
 * the removed ones with a count of +1, the published ones with -1. Up to about 80% of the cell
 * count they come back with near certainty; beyond that the peeling stops short, and decode() says so.
 */
import { UnexpectedError } from 'n8n-workflow';
import { createHash } from 'crypto';

const SUB_TABLES = 3;
const CHECK_BYTES = 8;
/** Each key is stored with its length in front, so the XOR of a cell's keys reads back exactly. */
const LENGTH_BYTES = 2;
const MAX_KEY_BYTES = 0xffff;

export interface PageKey {
	url: string;
	name: string;
	locale: string;
}

/** The digest as kept in the workflow's static data: plain JSON. */
export interface StoredDigest {
	cells: number;
	/** Int32 counts, base64. */
	counts: string;
	/** Checksums, CHECK_BYTES per cell, base64. */
	checks: string;
	/** Each cell's XOR of its length-prefixed keys, base64 ('' for an empty cell). */
	keys: string[];
}

function keyBytes(key: PageKey): Buffer {
	const text = Buffer.from(JSON.stringify([key.url, key.name, key.locale]), 'utf8');
	const length = Math.min(text.length, MAX_KEY_BYTES);
	const bytes = Buffer.alloc(LENGTH_BYTES + length);
	bytes.writeUInt16BE(length, 0);
	text.copy(bytes, LENGTH_BYTES, 0, length);
	return bytes;
}

function xorInto(target: Buffer, source: Buffer): Buffer {
	const out =
		target.length >= source.length
			? target
			: Buffer.concat([target, Buffer.alloc(source.length - target.length)]);
	for (let i = 0; i < source.length; i++) out[i] ^= source[i];
	return out;
}

export class PageDigest {
	readonly counts: Int32Array;
	readonly checks: Buffer;
	readonly keys: Buffer[];

	constructor(readonly cells: number) {
		if (!Number.isInteger(cells) || cells < SUB_TABLES || cells % SUB_TABLES !== 0)
			throw new UnexpectedError(`A digest has a multiple of ${SUB_TABLES} cells, not ${cells}`);
		this.counts = new Int32Array(cells);
		this.checks = Buffer.alloc(cells * CHECK_BYTES);
		this.keys = Array.from({ length: cells }, () => Buffer.alloc(0));
	}

	/** The cells a key lives in, and its checksum, from one SHA-256 of its bytes. */
	private place(bytes: Buffer): { cells: number[]; check: Buffer } {
		const hash = createHash('sha256').update(bytes).digest();
		const size = this.cells / SUB_TABLES;
		const cells: number[] = [];
		for (let table = 0; table < SUB_TABLES; table++)
			cells.push(table * size + (hash.readUInt32BE(CHECK_BYTES + table * 4) % size));
		return { cells, check: hash.subarray(0, CHECK_BYTES) };
	}

	private apply(bytes: Buffer, sign: 1 | -1): void {
		const { cells, check } = this.place(bytes);
		for (const cell of cells) {
			this.counts[cell] += sign;
			xorInto(this.checks.subarray(cell * CHECK_BYTES, (cell + 1) * CHECK_BYTES), check);
			this.keys[cell] = xorInto(this.keys[cell], bytes);
		}
	}

	add(key: PageKey): void {
		this.apply(keyBytes(key), 1);
	}

	/** This digest minus another of the same size, cell by cell (a new digest). */
	subtract(other: PageDigest): PageDigest {
		if (other.cells !== this.cells)
			throw new UnexpectedError('Digests of different sizes cannot be compared');
		const result = new PageDigest(this.cells);
		for (let cell = 0; cell < this.cells; cell++) {
			result.counts[cell] = this.counts[cell] - other.counts[cell];
			result.keys[cell] = xorInto(Buffer.from(this.keys[cell]), other.keys[cell]);
		}
		for (let i = 0; i < this.checks.length; i++)
			result.checks[i] = this.checks[i] ^ other.checks[i];
		return result;
	}

	/** The one key a cell holds, when it holds exactly one (else undefined). */
	private pureKey(cell: number): Buffer | undefined {
		const count = this.counts[cell];
		if (count !== 1 && count !== -1) return undefined;
		const stored = this.keys[cell];
		if (stored.length < LENGTH_BYTES) return undefined;
		const length = stored.readUInt16BE(0);
		if (LENGTH_BYTES + length > stored.length) return undefined;
		for (let i = LENGTH_BYTES + length; i < stored.length; i++)
			if (stored[i] !== 0) return undefined;
		const bytes = stored.subarray(0, LENGTH_BYTES + length);
		const check = this.place(bytes).check;
		return check.equals(this.checks.subarray(cell * CHECK_BYTES, (cell + 1) * CHECK_BYTES))
			? Buffer.from(bytes)
			: undefined;
	}

	private isEmpty(): boolean {
		for (let cell = 0; cell < this.cells; cell++) {
			if (this.counts[cell] !== 0) return false;
			if (this.keys[cell].some((byte) => byte !== 0)) return false;
		}
		return !this.checks.some((byte) => byte !== 0);
	}

	/**
	 * Reads back the keys of a difference `first.subtract(second)` (this digest): those only in the
	 * first, and those only in the second. `complete` is false when some keys could not be read back
	 * (more differences than the cells can tell apart). Consumes the digest.
	 */
	decode(): { onlyInFirst: PageKey[]; onlyInSecond: PageKey[]; complete: boolean } {
		const onlyInFirst: PageKey[] = [];
		const onlyInSecond: PageKey[] = [];
		const queue: number[] = [];
		for (let cell = 0; cell < this.cells; cell++) queue.push(cell);
		while (queue.length > 0) {
			const cell = queue.pop() as number;
			const bytes = this.pureKey(cell);
			if (!bytes) continue;
			const sign = this.counts[cell] as 1 | -1;
			const [url, name, locale] = JSON.parse(bytes.subarray(LENGTH_BYTES).toString('utf8')) as [
				string,
				string,
				string,
			];
			(sign === 1 ? onlyInFirst : onlyInSecond).push({ url, name, locale });
			const { cells } = this.place(bytes);
			this.apply(bytes, sign === 1 ? -1 : 1);
			queue.push(...cells);
		}
		return { onlyInFirst, onlyInSecond, complete: this.isEmpty() };
	}

	/** Bytes the stored form takes in static data (JSON). */
	static storedSize(stored: StoredDigest): number {
		return Buffer.byteLength(JSON.stringify(stored), 'utf8');
	}

	toStored(): StoredDigest {
		return {
			cells: this.cells,
			counts: Buffer.concat(
				Array.from(this.counts, (count) => {
					const bytes = Buffer.alloc(4);
					bytes.writeInt32LE(count, 0);
					return bytes;
				}),
			).toString('base64'),
			checks: this.checks.toString('base64'),
			keys: this.keys.map((key) => key.toString('base64')),
		};
	}

	static fromStored(stored: StoredDigest): PageDigest {
		const digest = new PageDigest(stored.cells);
		const counts = Buffer.from(stored.counts, 'base64');
		for (let cell = 0; cell < stored.cells; cell++)
			digest.counts[cell] = counts.readInt32LE(cell * 4);
		Buffer.from(stored.checks, 'base64').copy(digest.checks);
		stored.keys.forEach((key, cell) => (digest.keys[cell] = Buffer.from(key, 'base64')));
		return digest;
	}

	static of(keys: Iterable<PageKey>, cells: number): PageDigest {
		const digest = new PageDigest(cells);
		for (const key of keys) digest.add(key);
		return digest;
	}
}
