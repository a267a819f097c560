/**
 * A `text/plain` body through a pipeline of the common log shape — dissect on `message`, then
 * processors that declare the keys they touch (date, epoch), then a v1 transform — run on the
 * body's bytes. Each line is matched as bytes (dissect-bytes.ts); a String field column whose value
 * is a capture (or the line) that no later processor rewrites is copied as bytes into its UTF-8
 * column, which the payload carries as it is (utf8-column.ts). Only the keys the later processors
 * and the other columns read become strings. The general path made a string per line and per
 * capture, a row array per line, then encoded every string to UTF-8 again: most of an access
 * line's decoding cost and most of what the collector then had to sweep.
 *
 * The answers are the general path's (`Pipeline.run` over `parseRecords`): the same rows in the
 * same order, the same failures at the same record indexes with the same messages
 * (test/pipeline/text-plan.test.ts runs both on the same bodies).
 */
import { isAscii, isUtf8 } from 'node:buffer';
import type { Utf8Column } from '../shared/codec/utf8-column.js';
import type { InsertColumn, TableInsert } from '../shared/insert.js';
import type { Cell, RecordFailure } from './output.js';
import { type Processor, RecordError } from './processor.js';
import { isDissect } from './processors/dissect.js';
import { type BytePattern, bytePatternOf, matchBytes } from './processors/dissect-bytes.js';
import { insertColumnOfCells, insertColumnOfUtf8 } from './to-inserts.js';
import { evalColumn, type TransformColumn, type TransformRows } from './transform.js';
import type { PipelineRecord } from './value.js';

/** Where a key's value comes from in a matched line: a capture (>= 0), the whole line, or nowhere. */
const LINE = -1;
const ABSENT = -2;

/** A String column filled with bytes: where its value comes from, per pattern. */
interface ByteColumn {
  at: number;
  sourceOf: Int32Array;
  /** Its bytes when the key is absent (a `default`), or null for NULL. */
  absent: Uint8Array | null;
}

/** A key of the record the later processors and the other columns read, and its source per pattern. */
interface RecordKey {
  name: string;
  sourceOf: Int32Array;
  /** The bytes and string of its last short value: log lines repeat most (times, statuses). */
  lastBytes: Uint8Array;
  lastLength: number;
  lastString: string;
}

/** Values up to this many bytes are compared with the key's last one before a string is made. */
const REUSE_MAX = 64;

export interface TextRun {
  insert: TableInsert | null;
  failures: RecordFailure[];
}

/** A growable UTF-8 column. */
class Utf8Builder {
  bytes: Uint8Array;
  lengths: Int32Array;
  size = 0;
  rows = 0;
  nulls = 0;

  constructor(bytes: number) {
    this.bytes = new Uint8Array(Math.max(bytes, 256));
    this.lengths = new Int32Array(256);
  }

  add(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    if (this.size + n > this.bytes.length) this.grow(n);
    const dst = this.bytes;
    // Most values are short: a loop beats a native call; long ones (user agents) are copied natively.
    if (n < 48) for (let i = 0, at = this.size; i < n; i++) dst[at + i] = src[start + i] as number;
    else dst.set(src.subarray(start, end), this.size);
    this.size += n;
    this.length(n);
  }

  addNull(): void {
    this.nulls++;
    this.length(-1);
  }

  private length(n: number): void {
    if (this.rows === this.lengths.length) {
      const grown = new Int32Array(this.rows * 2);
      grown.set(this.lengths);
      this.lengths = grown;
    }
    this.lengths[this.rows++] = n;
  }

  private grow(n: number): void {
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.size + n));
    grown.set(this.bytes.subarray(0, this.size));
    this.bytes = grown;
  }

  column(): { utf8: Utf8Column; valid: Uint8Array | undefined } {
    const lengths = this.lengths.subarray(0, this.rows);
    let valid: Uint8Array | undefined;
    if (this.nulls > 0) {
      valid = new Uint8Array(this.rows);
      for (let i = 0; i < this.rows; i++) valid[i] = lengths[i] === -1 ? 0 : 1;
    }
    return { utf8: { bytes: this.bytes.subarray(0, this.size), lengths }, valid };
  }
}

const BOM = [0xef, 0xbb, 0xbf];

export class TextPlan {
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;

  private constructor(
    private readonly patterns: BytePattern[],
    private readonly later: Processor[],
    private readonly columns: TransformColumn[],
    private readonly byteColumns: ByteColumn[],
    /** The columns evaluated from the record, by position in `columns`. */
    private readonly cellColumns: number[],
    private readonly recordKeys: RecordKey[],
  ) {
    const keys = Math.max(...patterns.map((p) => p.keyCount));
    this.starts = new Int32Array(keys);
    this.ends = new Int32Array(keys);
  }

  /**
   * The plan for a pipeline of this shape, or null: version 1 with a transform, no dispatcher or
   * table suffix, dissect on `message` first (ASCII literal text, no appended keys), then only
   * processors that declare their keys; no key named `greptime_*` anywhere (those are hints).
   */
  static of(processors: Processor[], rows: TransformRows | null, routes: boolean): TextPlan | null {
    if (rows === null || rows.version !== 1 || routes) return null;
    const [first, ...later] = processors;
    if (first === undefined || !isDissect(first)) return null;
    if (first.fields.length !== 1 || first.fields[0]?.input !== 'message') return null;
    const patterns: BytePattern[] = [];
    for (const p of first.patterns) {
      const b = bytePatternOf(p);
      if (b === undefined) return null;
      patterns.push(b);
    }
    const hint = (name: string) => name.startsWith('greptime_');
    if (first.patterns.some((p) => p.keys.some((k) => hint(k.name)))) return null;
    const reads = new Set<string>();
    const writes = new Set<string>();
    for (const p of later) {
      if (p.io === undefined) return null;
      for (const k of p.io.reads) reads.add(k);
      for (const k of p.io.writes) {
        if (hint(k)) return null;
        writes.add(k);
      }
    }
    // Where each key comes from in a line matched by each pattern: the last capture of that name
    // (a later one overwrites an earlier), else the line itself for `message`.
    const sourceOf = (name: string) =>
      Int32Array.from(first.patterns, (p) => {
        for (let k = p.keys.length - 1; k >= 0; k--) if (p.keys[k]?.name === name) return k;
        return name === 'message' ? LINE : ABSENT;
      });
    const byteColumns: ByteColumn[] = [];
    const cellColumns: number[] = [];
    rows.columns.forEach((tc, at) => {
      const c = tc.column;
      if (c.type === 'String' && c.semantic === 'FIELD' && tc.input !== '' && !writes.has(tc.input)) {
        const fallback = tc.onFailure === 'default' && typeof tc.defaultCell === 'string' ? tc.defaultCell : null;
        byteColumns.push({
          at,
          sourceOf: sourceOf(tc.input),
          absent: fallback === null ? null : Buffer.from(fallback, 'utf8'),
        });
      } else {
        cellColumns.push(at);
        if (tc.input !== '') reads.add(tc.input);
      }
    });
    const recordKeys = [...reads].map((name) => ({
      name,
      sourceOf: sourceOf(name),
      lastBytes: new Uint8Array(REUSE_MAX),
      lastLength: -1,
      lastString: '',
    }));
    return new TextPlan(patterns, later, rows.columns, byteColumns, cellColumns, recordKeys);
  }

  /** Runs the body's lines (text/plain records) into an insert of `db`.`table`. */
  run(body: Buffer, db: string, table: string, options: { skipError: boolean; nowNanos: () => bigint }): TextRun {
    // Grown by doubling: a column holds a share of the body, and a large body must not reserve
    // that share for every column up front.
    const bytes = this.byteColumns.map(() => new Utf8Builder(Math.min(body.length >> 2, 1 << 16)));
    const cells = this.cellColumns.map(() => [] as Cell[]);
    const scratch = new Array<Cell>(this.cellColumns.length);
    const failures: RecordFailure[] = [];
    const allAscii = isAscii(body);
    let index = -1;
    let rows = 0;
    let start = 0;
    while (start < body.length) {
      let nl = body.indexOf(0x0a, start);
      if (nl < 0) nl = body.length;
      const end = nl > start && body[nl - 1] === 0x0d ? nl - 1 : nl;
      let from = start;
      start = nl + 1;
      if (end === from) continue;
      let ascii = allAscii;
      if (!allAscii) {
        const line = body.subarray(from, end);
        ascii = isAscii(line);
        // Lines that are not UTF-8 are dropped, as the general path's decoder drops them.
        if (!ascii && !isUtf8(line)) continue;
        // ... which also takes a byte order mark off the start of each line.
        if (
          !ascii &&
          end - from >= 3 &&
          body[from] === BOM[0] &&
          body[from + 1] === BOM[1] &&
          body[from + 2] === BOM[2]
        )
          from += 3;
      }
      index++;
      try {
        const p = this.match(body, from, end);
        if (p < 0) throw new RecordError('No matching pattern found');
        if (this.cellColumns.length > 0 || this.later.length > 0) {
          const record = this.recordOf(p, body, from, end, ascii);
          for (const proc of this.later) proc.exec(record);
          for (let i = 0; i < this.cellColumns.length; i++) {
            scratch[i] = evalColumn(
              this.columns[this.cellColumns[i] as number] as TransformColumn,
              record,
              options.nowNanos,
            );
          }
        }
        // Nothing can fail past this point: the row is added whole.
        for (let i = 0; i < cells.length; i++) (cells[i] as Cell[]).push(scratch[i] as Cell);
        for (let i = 0; i < this.byteColumns.length; i++) {
          const col = this.byteColumns[i] as ByteColumn;
          const out = bytes[i] as Utf8Builder;
          const src = col.sourceOf[p] as number;
          if (src >= 0) out.add(body, this.starts[src] as number, this.ends[src] as number);
          else if (src === LINE) out.add(body, from, end);
          else if (col.absent !== null) out.add(col.absent, 0, col.absent.length);
          else out.addNull();
        }
        rows++;
      } catch (err) {
        if (!(err instanceof RecordError) || !options.skipError) throw err;
        failures.push({ index, message: err.message });
      }
    }
    if (rows === 0) return { insert: null, failures };
    const columns = new Array<InsertColumn>(this.columns.length);
    this.cellColumns.forEach((at, i) => {
      columns[at] = insertColumnOfCells((this.columns[at] as TransformColumn).column, cells[i] as Cell[]);
    });
    this.byteColumns.forEach((col, i) => {
      const { utf8, valid } = (bytes[i] as Utf8Builder).column();
      columns[col.at] = insertColumnOfUtf8((this.columns[col.at] as TransformColumn).column, utf8, valid);
    });
    return { insert: { db, table, rowCount: rows, columns }, failures };
  }

  /** The first pattern matching `body[from, end)` (its captures in starts/ends), or -1. */
  private match(body: Buffer, from: number, end: number): number {
    for (let p = 0; p < this.patterns.length; p++) {
      if (matchBytes(this.patterns[p] as BytePattern, body, from, end, this.starts, this.ends)) return p;
    }
    return -1;
  }

  /** A record of the keys read past dissect, as the general path's record would hold them. */
  private recordOf(p: number, body: Buffer, from: number, end: number, ascii: boolean): PipelineRecord {
    const record: PipelineRecord = {};
    for (const key of this.recordKeys) {
      const src = key.sourceOf[p] as number;
      if (src >= 0) record[key.name] = stringOf(key, body, this.starts[src] as number, this.ends[src] as number, ascii);
      else if (src === LINE) record[key.name] = stringOf(key, body, from, end, ascii);
    }
    return record;
  }
}

/**
 * The string of `body[start, end)` (valid UTF-8; `ascii` when it has no other bytes), the key's
 * last one when the bytes are the same: bytes decode to one string whichever way they are read.
 */
function stringOf(key: RecordKey, body: Buffer, start: number, end: number, ascii: boolean): string {
  const n = end - start;
  if (n > REUSE_MAX) return body.toString(ascii ? 'latin1' : 'utf8', start, end);
  const last = key.lastBytes;
  if (n === key.lastLength) {
    let i = 0;
    while (i < n && body[start + i] === last[i]) i++;
    if (i === n) return key.lastString;
  }
  for (let i = 0; i < n; i++) last[i] = body[start + i] as number;
  key.lastLength = n;
  key.lastString = body.toString(ascii ? 'latin1' : 'utf8', start, end);
  return key.lastString;
}
