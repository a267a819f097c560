/**
 * Merges the parts of one series into a RowBuffer in timestamp order, applying the table's merge
 * mode to rows that share a timestamp:
 * - `last_row`: the newest row wins entirely;
 * - `last_non_null`: each field takes the newest non-null value among the duplicates;
 * - `append`: every row is kept (duplicates oldest first).
 * "Newest" is write order: a later part is newer than an earlier one, and within a part a later
 * row is newer. The same code serves scans, flushes and compactions, so they cannot disagree.
 *
 * It is a generator so that callers can drain a full buffer mid-series: it yields whenever the
 * buffer is full and it still has rows to write; the caller empties the buffer and resumes.
 */
import type { MergeMode } from '../../shared/codec/write-batch.js';
import type { Part } from './part.js';
import type { RowBuffer } from './row-buffer.js';

function firstTs(p: Part): bigint {
  return p.ts[p.start] as bigint;
}

function lastTs(p: Part): bigint {
  return p.ts[p.end - 1] as bigint;
}

/** Copies a whole part, yielding whenever the buffer fills. */
function* copyPart(part: Part, buf: RowBuffer): Generator<void, void, void> {
  let from = part.start;
  while (from < part.end) {
    if (buf.free === 0) yield;
    const to = Math.min(part.end, from + buf.free);
    buf.appendRange(part, from, to);
    from = to;
  }
}

/**
 * The parts in time order when they can simply be concatenated: each free of duplicates (or the
 * mode keeps duplicates) and none overlapping another in time. Null when a real merge is needed.
 */
function concatenationOrder(parts: Part[], mode: MergeMode): Part[] | null {
  for (const p of parts) if (!p.unique && mode !== 'append') return null;
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
export function* mergeSeries(parts: Part[], mode: MergeMode, buf: RowBuffer): Generator<void, void, void> {
  const live = parts.filter((p) => p.end > p.start);
  if (live.length === 0) return;
  const order = concatenationOrder(live, mode);
  if (order) {
    for (const p of order) yield* copyPart(p, buf);
    return;
  }
  yield* mergeGeneral(live, mode, buf);
}

/** k-way merge by (timestamp, part age, row), grouping equal timestamps. */
function* mergeGeneral(parts: Part[], mode: MergeMode, buf: RowBuffer): Generator<void, void, void> {
  const k = parts.length;
  const pos = parts.map((p) => p.start);
  const groupParts: number[] = [];
  const groupRows: number[] = [];
  for (;;) {
    let best = -1;
    let t = 0n;
    for (let i = 0; i < k; i++) {
      const p = parts[i] as Part;
      const at = pos[i] as number;
      if (at >= p.end) continue;
      const v = p.ts[at] as bigint;
      if (best < 0 || v < t) {
        best = i;
        t = v;
      }
    }
    if (best < 0) return;
    let count = 0;
    for (let i = 0; i < k; i++) {
      const p = parts[i] as Part;
      let at = pos[i] as number;
      while (at < p.end && p.ts[at] === t) {
        groupParts[count] = i;
        groupRows[count] = at;
        count++;
        at++;
      }
      pos[i] = at;
    }
    if (mode === 'append') {
      for (let j = 0; j < count; j++) {
        if (buf.free === 0) yield;
        buf.appendRow(parts[groupParts[j] as number] as Part, groupRows[j] as number);
      }
    } else {
      if (buf.free === 0) yield;
      if (mode === 'last_row' || count === 1) {
        buf.appendRow(parts[groupParts[count - 1] as number] as Part, groupRows[count - 1] as number);
      } else {
        buf.appendMergedRow(parts, groupParts, groupRows, count);
      }
    }
  }
}
