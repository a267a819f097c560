/**
 * A memtable string column as UTF-8 bytes outside the JS heap, in chunks that double from
 * FIRST_CHUNK_BYTES up to CHUNK_BYTES (a value larger gets a chunk of its own): a table with few
 * rows or many string columns must not cost megabytes a column. Row r's value ends at `ends[r]`, an address `chunk × 2^32 +
 * offset`, and starts where row r - 1's ended, or at offset 0 of its own chunk when that is a later
 * one (a value never spans chunks); it is read only where the row's validity says present. Rows
 * are only ever appended, so a scan reading rows below its snapshot sees them as they were.
 *
 * Kept as strings, a log table's values were millions of heap objects that survived the young
 * generation and were marked by every major GC until the flush, and the column's pointer array
 * was copied each time it doubled; as bytes, an append is one copy of the payload's column
 * (utf8-column.ts) and the strings exist only while a scan or flush reads them. Chunks rather than
 * one doubling buffer: the doubling copied the column again and again and left buffers of tens
 * of megabytes for the GC to find.
 */
import { decodeUtf8Run, type Utf8Column } from '../../shared/codec/utf8-column.js';

const FIRST_CHUNK_BYTES = 4096;
const CHUNK_BYTES = 1 << 21;
const CHUNK_SPAN = 2 ** 32;
const NO_BYTES = Buffer.alloc(0);
/** Bytes decoded at once by gatherStrings, and how far before the value asked for they start. */
const WINDOW_BYTES = 32 * 1024;
const WINDOW_BACK_BYTES = 4 * 1024;
/** Windows kept while gathering: about one per body being written when the rows came. */
const WINDOWS_HELD = 8;

/** Bytes `[start, end)` (addresses) decoded; null text when they were not all ASCII. */
interface DecodedWindow {
  start: number;
  end: number;
  text: string | null;
}

/** The last few windows decoded, replaced oldest first. */
class WindowSet {
  private readonly held: DecodedWindow[] = [];
  private next = 0;

  find(start: number, end: number): DecodedWindow | null {
    const held = this.held;
    for (let i = 0; i < held.length; i++) {
      const w = held[i] as DecodedWindow;
      if (w.start <= start && end <= w.end) return w;
    }
    return null;
  }

  add(w: DecodedWindow): DecodedWindow {
    if (this.held.length < WINDOWS_HELD) this.held.push(w);
    else {
      this.held[this.next] = w;
      this.next = (this.next + 1) % WINDOWS_HELD;
    }
    return w;
  }

  clear(): void {
    this.held.length = 0;
    this.next = 0;
  }
}

export class TextColumn {
  private readonly chunks: Buffer[] = [];
  /** Bytes used in each chunk before the last, which `used` measures. */
  private readonly chunkUsed: number[] = [];
  /** Bytes used in the last chunk. */
  private used = 0;
  /** Windows of bytes decoded by `gatherStrings`, during one call only. */
  private readonly windows = new WindowSet();
  ends: Float64Array;
  /** Bytes held by the chunks. */
  bytes = 0;

  constructor(capacity: number) {
    this.ends = new Float64Array(capacity);
  }

  /** Room for `capacity` rows, the first `rows` kept. */
  grow(capacity: number, rows: number): void {
    const ends = new Float64Array(capacity);
    ends.set(this.ends.subarray(0, rows));
    this.ends = ends;
  }

  /** The address after the last byte written. */
  private get end(): number {
    return this.chunks.length === 0 ? 0 : (this.chunks.length - 1) * CHUNK_SPAN + this.used;
  }

  /** The chunk to write `n` more bytes into, a new one when the last has no room. */
  private room(n: number): Buffer {
    const last = this.chunks[this.chunks.length - 1];
    if (last !== undefined && this.used + n <= last.length) return last;
    const size = last === undefined ? FIRST_CHUNK_BYTES : Math.min(CHUNK_BYTES, last.length * 2);
    const chunk = Buffer.allocUnsafe(Math.max(size, n));
    if (last !== undefined) this.chunkUsed.push(this.used);
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.used = 0;
    return chunk;
  }

  /**
   * Appends rows `[base, base + n)` from a byte column, setting `valid[row]` to 1 where a value is
   * present (`from`: the vector's own validity).
   */
  appendUtf8(col: Utf8Column, from: Uint8Array | undefined, valid: Uint8Array, base: number, n: number): void {
    const { bytes, lengths } = col;
    const ends = this.ends;
    let i = 0;
    let at = 0;
    while (i < n) {
      // As many whole values as fit in one chunk, copied at once.
      let size = 0;
      let j = i;
      const first = Math.max(0, lengths[i] as number);
      const chunk = this.room(first);
      const free = chunk.length - this.used;
      for (; j < n; j++) {
        const len = Math.max(0, lengths[j] as number);
        if (size + len > free) break;
        size += len;
      }
      chunk.set(bytes.subarray(at, at + size), this.used);
      let end = this.end;
      for (let k = i; k < j; k++) {
        const len = lengths[k] as number;
        if (len >= 0) {
          end += len;
          if (from === undefined || from[k] !== 0) valid[base + k] = 1;
        }
        ends[base + k] = end;
      }
      this.used += size;
      at += size;
      i = j;
    }
  }

  /** Appends rows `[base, base + n)` from strings; as `appendUtf8`. */
  appendStrings(
    values: ReadonlyArray<string | null | undefined>,
    from: Uint8Array | undefined,
    valid: Uint8Array,
    base: number,
    n: number,
  ): void {
    const ends = this.ends;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v !== null && v !== undefined && (from === undefined || from[i] !== 0)) {
        // A UTF-16 unit takes at most 3 bytes of UTF-8.
        const chunk = this.room(v.length * 3);
        this.used += chunk.write(v, this.used, 'utf8');
        valid[base + i] = 1;
      }
      ends[base + i] = this.end;
    }
  }

  /** Rows `[base, base + n)` without a value. */
  skip(base: number, n: number): void {
    this.ends.fill(this.end, base, base + n);
  }

  /** Row `row`'s value (its validity is the caller's to check). */
  valueOf(row: number): string {
    const end = this.ends[row] as number;
    const start = this.startOf(row, end);
    const chunk = Math.floor(end / CHUNK_SPAN);
    const base = chunk * CHUNK_SPAN;
    return (this.chunks[chunk] ?? NO_BYTES).toString('utf8', start - base, end - base);
  }

  private startOf(row: number, end: number): number {
    const prev = row === 0 ? 0 : (this.ends[row - 1] as number);
    const chunk = Math.floor(end / CHUNK_SPAN);
    return Math.floor(prev / CHUNK_SPAN) === chunk ? prev : chunk * CHUNK_SPAN;
  }

  /**
   * The strings of rows `rows[from..to)` (any order) into `out[0..)`, null where `valid` is not 1.
   * Rows read in time order lie near one another in a few places of a chunk (one per body that was
   * being written at once), so the bytes are decoded a window at a time and each value is a
   * substring of its window: one native call per window instead of one per value. A window that
   * is not all ASCII falls back to one decode per value.
   */
  gatherStrings(rows: Int32Array, from: number, to: number, valid: Uint8Array, out: Array<string | null>): void {
    const windows = this.windows;
    const ends = this.ends;
    for (let i = from, k = 0; i < to; i++, k++) {
      const row = rows[i] as number;
      if (valid[row] !== 1) {
        out[k] = null;
        continue;
      }
      const end = ends[row] as number;
      const start = this.startOf(row, end);
      let w = windows.find(start, end);
      if (w === null) w = windows.add(this.window(start, end));
      out[k] = w.text === null ? this.valueOf(row) : w.text.substring(start - w.start, end - w.start);
    }
    windows.clear();
  }

  /** A decoded window around `[start, end)` (addresses), within the used part of its chunk. */
  private window(start: number, end: number): DecodedWindow {
    const chunk = Math.floor(end / CHUNK_SPAN);
    const base = chunk * CHUNK_SPAN;
    const bytes = this.chunks[chunk] ?? NO_BYTES;
    const used = chunk === this.chunks.length - 1 ? this.used : (this.chunkUsed[chunk] ?? 0);
    const from = Math.max(base, start - WINDOW_BACK_BYTES);
    const to = Math.max(end, Math.min(base + used, from + WINDOW_BYTES));
    const text = bytes.toString('utf8', from - base, to - base);
    return { start: from, end: to, text: text.length === to - from ? text : null };
  }

  /** Rows `[from, to)` as strings, null where `valid` is not 1. */
  strings(from: number, to: number, valid: Uint8Array): Array<string | null> {
    const out = new Array<string | null>(to - from);
    let row = from;
    while (row < to) {
      // The rows whose bytes lie in one chunk decode as one run.
      const chunk = Math.floor((this.ends[row] as number) / CHUNK_SPAN);
      let last = row + 1;
      while (last < to && Math.floor((this.ends[last] as number) / CHUNK_SPAN) === chunk) last++;
      const base = chunk * CHUNK_SPAN;
      const start = this.startOf(row, this.ends[row] as number) - base;
      const ends = this.ends;
      decodeUtf8Run(
        this.chunks[chunk] ?? NO_BYTES,
        start,
        (ends[last - 1] as number) - base,
        last - row,
        (i) => (ends[row + i] as number) - (i === 0 ? start + base : (ends[row + i - 1] as number)),
        (i) => valid[row + i] === 1,
        out,
        row - from,
      );
      row = last;
    }
    return out;
  }
}
