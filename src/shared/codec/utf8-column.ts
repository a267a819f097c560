/**
 * A string column as UTF-8 bytes: the values back to back and each row's byte length (-1 for
 * NULL). Payloads carry string columns in this form so that a shard copies a log column's bytes
 * into its memtable in one move: the strings of a decoded payload were kept by the memtable until
 * its flush, and those millions of surviving objects were what the V8 garbage collector spent
 * most of a log load on (copied out of the young generation, then marked by every major GC).
 * Strings are made only when something reads the values.
 */
import type { Vector } from '../types.js';

export interface Utf8Column {
  bytes: Uint8Array;
  /** Per row: its value's length in bytes, or -1 for NULL. */
  lengths: Int32Array;
}

/** The column of `values`, NULL where a value is null or undefined. */
export function utf8ColumnOf(values: ReadonlyArray<string | null | undefined>): Utf8Column {
  const n = values.length;
  const lengths = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    lengths[i] = v === null || v === undefined ? -1 : v.length;
  }
  // join writes null and undefined as ''. One encode for the column; when every character took one
  // byte (the usual case for logs), the UTF-16 lengths above are the byte lengths.
  const joined = values.join('');
  const bytes = Buffer.from(joined, 'utf8');
  if (bytes.length !== joined.length) {
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== null && v !== undefined) lengths[i] = Buffer.byteLength(v, 'utf8');
    }
  }
  return { bytes, lengths };
}

/** Why `col` cannot be a column of `rows` rows, or null. */
export function utf8ColumnProblem(col: Utf8Column, rows: number): string | null {
  if (!(col.bytes instanceof Uint8Array) || !(col.lengths instanceof Int32Array)) return 'not a byte column';
  if (col.lengths.length < rows) return 'fewer lengths than rows';
  let total = 0;
  for (let i = 0; i < col.lengths.length; i++) {
    const n = col.lengths[i] as number;
    if (n < -1) return 'negative length';
    if (n > 0) total += n;
  }
  return total === col.bytes.length ? null : 'lengths do not add up to the bytes';
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The strings of a run of values whose bytes are `bytes[start, end)`, written to `out[at..at +
 * count)`: `lengthOf(i)` gives value i's byte length (-1 NULL) and `present(i)` whether it is read
 * at all. Decoded as one string when every byte is a character, so each value is a slice of it.
 */
export function decodeUtf8Run(
  bytes: Uint8Array,
  start: number,
  end: number,
  count: number,
  lengthOf: (i: number) => number,
  present: (i: number) => boolean,
  out: Array<string | null> = new Array<string | null>(count),
  at = 0,
): Array<string | null> {
  const buf = bufferOf(bytes);
  const joined = buf.toString('utf8', start, end);
  const flat = joined.length === end - start;
  let from = start;
  for (let i = 0; i < count; i++) {
    const n = lengthOf(i);
    if (n < 0 || !present(i)) {
      out[at + i] = null;
    } else if (flat) {
      out[at + i] = joined.substring(from - start, from - start + n);
    } else {
      out[at + i] = buf.toString('utf8', from, from + n);
    }
    if (n > 0) from += n;
  }
  return out;
}

/**
 * A decoded string vector that keeps its bytes: `utf8` is what the memtable copies, `values` the
 * strings, made on first read for any other reader.
 */
export class Utf8Vector implements Vector<'str'> {
  readonly kind = 'str' as const;
  private strings: Array<string | null> | null = null;

  constructor(
    readonly utf8: Utf8Column,
    public valid: Uint8Array | undefined,
  ) {}

  get values(): Array<string | null> {
    if (this.strings === null) {
      const { bytes, lengths } = this.utf8;
      this.strings = decodeUtf8Run(
        bytes,
        0,
        bytes.length,
        lengths.length,
        (i) => lengths[i] as number,
        () => true,
      );
    }
    return this.strings;
  }
}

/** The byte form of a string vector, when it has one. */
export function utf8Of(v: Vector): Utf8Column | undefined {
  return v instanceof Utf8Vector ? v.utf8 : undefined;
}
