/**
 * Merges the parts of one series into a RowBuffer in timestamp order, applying the table's merge
 * mode to rows that share a timestamp:
 * - `last_row`: the newest row wins entirely;
 * - `last_non_null`: each field takes the newest non-null value among the duplicates;
 * - `append`: every row is kept (duplicates oldest first).
 * "Newest" is write order: a later part is newer than an earlier one, and within a part a later
 * row is newer. The same code serves scans, flushes and compactions, so they cannot disagree.
 *
 * Deletes are rows whose delete-mark column is true (tombstones). A tombstone hides every older
 * row with its timestamp; newer rows start afresh. Flushes keep tombstones (older segments may still
 * hold what they hide); scans and full compactions drop them, since nothing older than a full
 * compaction's inputs exists.
 *
 * It is a generator so that callers can drain a full buffer mid-series: it yields whenever the
 * buffer is full and it still has rows to write; the caller empties the buffer and resumes.
 */
import type { MergeMode } from '../../shared/codec/write-batch.js';
import type { Part } from './part.js';
import { isPresent, type RowBuffer } from './row-buffer.js';

/** Where the delete marks are (a field spec index) and whether tombstones are written out. */
export interface DeleteMarks {
  column: number;
  keep: boolean;
}

function isTombstone(part: Part, row: number, column: number): boolean {
  const col = part.cols[column];
  return col != null && isPresent(col, row) && (col.values as Uint8Array)[row] === 1;
}

function firstTs(p: Part): bigint {
  return p.firstTs ?? (p.ts[p.start] as bigint);
}

function lastTs(p: Part): bigint {
  return p.lastTs ?? (p.ts[p.end - 1] as bigint);
}

/** A part's timestamps as 32-bit words (reading them decodes a segment block). */
function wordsOf(p: Part): Int32Array {
  return new Int32Array(p.ts.buffer, p.ts.byteOffset, p.ts.length * 2);
}

/** Copies rows `[from, end)` of a part, yielding whenever the buffer fills. */
function* copyRows(part: Part, from: number, end: number, buf: RowBuffer): Generator<void, void, void> {
  while (from < end) {
    if (buf.free === 0) yield;
    const to = Math.min(end, from + buf.free);
    buf.appendRange(part, from, to);
    from = to;
  }
}

/** Copies a whole part, leaving out tombstones unless they are kept. */
function* copyPart(part: Part, buf: RowBuffer, marks: DeleteMarks | undefined): Generator<void, void, void> {
  if (!marks || marks.keep || part.cols[marks.column] == null) {
    yield* copyRows(part, part.start, part.end, buf);
    part.release?.();
    return;
  }
  let from = part.start;
  for (let row = part.start; row < part.end; row++) {
    if (!isTombstone(part, row, marks.column)) continue;
    yield* copyRows(part, from, row, buf);
    from = row + 1;
  }
  yield* copyRows(part, from, part.end, buf);
  part.release?.();
}

/**
 * The parts in time order when they can simply be concatenated: each free of duplicates (or the
 * mode keeps duplicates) and none overlapping another in time. Null when a real merge is needed.
 */
function concatenationOrder(parts: Part[], mode: MergeMode, marks: DeleteMarks | undefined): Part[] | null {
  // Under append, duplicates stay, but a tombstone still hides the older rows of its timestamp
  // in the same part.
  for (const p of parts) if (!p.unique && (mode !== 'append' || marks !== undefined)) return null;
  if (parts.length === 1) return parts;
  const order = parts.slice().sort((a, b) => {
    const x = firstTs(a);
    const y = firstTs(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  for (let i = 1; i < order.length; i++) {
    if (lastTs(order[i - 1] as Part) >= firstTs(order[i] as Part)) return null;
  }
  return order;
}

/** Merges `parts` (oldest first) of one series into `buf`. */
export function* mergeSeries(
  parts: Part[],
  mode: MergeMode,
  buf: RowBuffer,
  marks?: DeleteMarks,
): Generator<void, void, void> {
  const live = parts.filter((p) => p.end > p.start);
  if (live.length === 0) return;
  const order = concatenationOrder(live, mode, marks);
  if (order) {
    for (const p of order) yield* copyPart(p, buf, marks);
    return;
  }
  // Only parts that overlap in time need the row-by-row merge: a series' segments are mostly
  // disjoint, and one late row in the memtable must not make every older segment merge row by row.
  for (const cluster of overlapClusters(live)) {
    const alone = cluster.length === 1 ? (cluster[0] as Part) : null;
    if (alone && (alone.unique || (mode === 'append' && marks === undefined))) yield* copyPart(alone, buf, marks);
    else yield* mergeGeneral(cluster, mode, buf, marks);
  }
}

/**
 * The parts in groups whose time ranges overlap (a part joins a group when it starts at or before
 * the latest end in it), groups in time order, each group's parts in their given (age) order.
 * Rows of different groups never share a timestamp, so the groups merge independently.
 */
function overlapClusters(parts: Part[]): Part[][] {
  const byStart = parts
    .map((p, age) => ({ p, age }))
    .sort((a, b) => {
      const x = firstTs(a.p);
      const y = firstTs(b.p);
      return x < y ? -1 : x > y ? 1 : a.age - b.age;
    });
  const clusters: Array<Array<{ p: Part; age: number }>> = [];
  let end = 0n;
  for (const entry of byStart) {
    const current = clusters[clusters.length - 1];
    if (current !== undefined && firstTs(entry.p) <= end) {
      current.push(entry);
      if (lastTs(entry.p) > end) end = lastTs(entry.p);
    } else {
      clusters.push([entry]);
      end = lastTs(entry.p);
    }
  }
  return clusters.map((c) => c.sort((a, b) => a.age - b.age).map((e) => e.p));
}

/**
 * k-way merge by (timestamp, part age, row), grouping equal timestamps. The inputs are chains:
 * the pieces of one run (`Part.run`: a series' blocks in one segment) are walked one after the
 * other as one input, each decoded when reached and released when passed. As separate inputs,
 * a segment's blocks that share a timestamp at their edges (many log lines a second) joined one
 * overlap cluster, and every row compared the heads of all their blocks: hundreds in a compaction.
 * Timestamps are compared as (signed high, unsigned low) 32-bit words: reading a BigInt64Array
 * element makes a heap BigInt, and this loop reads one per input per row.
 */
function* mergeGeneral(
  parts: Part[],
  mode: MergeMode,
  buf: RowBuffer,
  marks: DeleteMarks | undefined,
): Generator<void, void, void> {
  // Chain c is parts [chainFirst[c], chainLast[c]]; `cur[c]` its part being read, at row `pos[c]`.
  const chainFirst: number[] = [];
  const chainLast: number[] = [];
  for (let i = 0; i < parts.length; i++) {
    const run = (parts[i] as Part).run;
    if (i > 0 && run !== undefined && run === (parts[i - 1] as Part).run) chainLast[chainLast.length - 1] = i;
    else {
      chainFirst.push(i);
      chainLast.push(i);
    }
  }
  const k = chainFirst.length;
  const cur = chainFirst.slice();
  const pos = cur.map((i) => (parts[i] as Part).start);
  const words = cur.map((i) => wordsOf(parts[i] as Part));
  // Parts passed, released once the rows taken from them are in the buffer.
  const passed: Part[] = [];
  /** Moves chain c past its exhausted parts; false when the chain is done. */
  const settle = (c: number): boolean => {
    let i = cur[c] as number;
    while ((pos[c] as number) >= (parts[i] as Part).end) {
      if (i === chainLast[c]) return false;
      passed.push(parts[i] as Part);
      i++;
      cur[c] = i;
      pos[c] = (parts[i] as Part).start;
      words[c] = wordsOf(parts[i] as Part);
    }
    return true;
  };
  const live = new Uint8Array(k);
  for (let c = 0; c < k; c++) live[c] = settle(c) ? 1 : 0;
  const groupParts: number[] = [];
  const groupRows: number[] = [];
  // Under append without tombstones a group keeps all its rows, each input's as they stand: the
  // group is taken as ranges of rows (`groupRows[j]` to `groupEnds[j]`) and copied a range at a
  // time (many log lines share a second).
  const ranges = mode === 'append' && marks === undefined;
  const groupEnds: number[] = [];
  for (;;) {
    let best = -1;
    let hi = 0;
    let lo = 0;
    for (let c = 0; c < k; c++) {
      if (live[c] === 0) continue;
      const at = pos[c] as number;
      const w = words[c] as Int32Array;
      const h = w[2 * at + 1] as number;
      const l = (w[2 * at] as number) >>> 0;
      if (best < 0 || h < hi || (h === hi && l < lo)) {
        best = c;
        hi = h;
        lo = l;
      }
    }
    if (best < 0) {
      for (const p of passed) p.release?.();
      for (let c = 0; c < k; c++) (parts[cur[c] as number] as Part).release?.();
      return;
    }
    if (passed.length > 0) {
      for (const p of passed) p.release?.();
      passed.length = 0;
    }
    let count = 0;
    for (let c = 0; c < k; c++) {
      if (live[c] === 0) continue;
      // Equal timestamps may go on into the chain's next piece.
      for (;;) {
        const i = cur[c] as number;
        const end = (parts[i] as Part).end;
        const w = words[c] as Int32Array;
        let at = pos[c] as number;
        if (ranges) {
          const from = at;
          while (at < end && w[2 * at + 1] === hi && (w[2 * at] as number) >>> 0 === lo) at++;
          if (at > from) {
            groupParts[count] = i;
            groupRows[count] = from;
            groupEnds[count] = at;
            count++;
          }
        } else {
          while (at < end && w[2 * at + 1] === hi && (w[2 * at] as number) >>> 0 === lo) {
            groupParts[count] = i;
            groupRows[count] = at;
            count++;
            at++;
          }
        }
        pos[c] = at;
        if (at < end) break;
        if (!settle(c)) {
          live[c] = 0;
          break;
        }
      }
    }
    if (ranges) {
      for (let j = 0; j < count; j++) {
        yield* copyRows(parts[groupParts[j] as number] as Part, groupRows[j] as number, groupEnds[j] as number, buf);
      }
      continue;
    }
    // Only rows newer than the group's last tombstone count; the tombstone itself is written
    // out only when kept.
    let first = 0;
    if (marks) {
      for (let j = count - 1; j >= 0; j--) {
        if (isTombstone(parts[groupParts[j] as number] as Part, groupRows[j] as number, marks.column)) {
          first = marks.keep ? j : j + 1;
          break;
        }
      }
      if (first >= count) continue;
    }
    if (mode === 'append') {
      for (let j = first; j < count; j++) {
        if (buf.free === 0) yield;
        buf.appendRow(parts[groupParts[j] as number] as Part, groupRows[j] as number);
      }
    } else {
      const newest = count - 1;
      let from = first;
      const oldest = parts[groupParts[from] as number] as Part;
      if (marks?.keep && from < newest && isTombstone(oldest, groupRows[from] as number, marks.column)) {
        if (mode === 'last_row') {
          from = newest; // the newest row replaces everything before it anyway
        } else {
          // Write the tombstone, then the newer rows merged among themselves only, so that an
          // older segment cannot fill their NULLs with values from before the delete.
          if (buf.free === 0) yield;
          buf.appendRow(oldest, groupRows[from] as number);
          from++;
        }
      }
      if (buf.free === 0) yield;
      if (mode === 'last_row' || from === newest) {
        buf.appendRow(parts[groupParts[newest] as number] as Part, groupRows[newest] as number);
      } else if (from === 0) {
        buf.appendMergedRow(parts, groupParts, groupRows, count);
      } else {
        buf.appendMergedRow(parts, groupParts.slice(from, count), groupRows.slice(from, count), count - from);
      }
    }
  }
}
