/**
 * Series summaries for scans that ask for them (`ScanRequest.summaries`): a series' rows in a
 * segment are answered by the segment's statistics (segment/series-stats.ts) instead of its
 * blocks, and its rows in a memtable by a fold kept with the series (memtable/series-fold.ts),
 * when that cannot change the answer:
 * - the rows lie wholly inside the scan's time range (no row is cut off);
 * - the statistics stand for them (no NaN value, no row reading a column's default, no two rows
 *   of the source at one timestamp unless the table keeps both);
 * - no other part of the series (memtables, other segments) has a row at one of their
 *   timestamps, so nothing would merge with them: where spans meet, the timestamps of the
 *   meeting stretch are compared (a late write leaves a few rows in the span of a flushed
 *   segment); under `append` rows never merge, so any span will do; a member that shares a
 *   timestamp is read as rows, the others still summarised;
 * - the table has no tombstones (the scan checks that before asking).
 */
import type { ScanColumn, SeriesSummary } from '../shared/scan.js';
import type { SeriesTags } from '../shared/series-key.js';
import { lowerBound, type Part, upperBound } from './merge/part.js';
import type { SeriesGroup, SeriesSource, SourceSummary, SummaryRequest } from './merge/series-walk.js';

/**
 * How a scan's columns are answered from a summary, per column: the tag id (null: not a tag) and
 * the field spec (-1: not a field; the time index has neither). Null when some column cannot be
 * summarised.
 */
export function summaryColumnsOf(
  columns: readonly ScanColumn[],
  specOf: (column: ScanColumn) => number,
): Pick<SummaryScan, 'tagIds' | 'specs'> | null {
  const tagIds: Array<number | null> = [];
  const specs: number[] = [];
  for (const c of columns) {
    const field = c.role === 'field' && c.kind === 'f64' && c.absentValue === undefined;
    if (c.role === 'field' && !field) return null;
    tagIds.push(c.role === 'tag' ? c.id : null);
    specs.push(field ? specOf(c) : -1);
  }
  return { tagIds, specs };
}

/** Start and end (inclusive) of a part's rows, without decoding a lazily read block. */
function spanOf(part: Part): [bigint, bigint] {
  return [part.firstTs ?? (part.ts[part.start] as bigint), part.lastTs ?? (part.ts[part.end - 1] as bigint)];
}

/**
 * Rows of a span intersection read to find whether two members share a timestamp; past it they
 * are taken to, and read as rows (a late write leaves a few rows in another member's span; two
 * members overlapping through and through are merged as rows anyway).
 */
const SHARED_TIMES_ROWS_MAX = 4096;

/** Timestamps of `parts` in `[from, to]`, ascending; null past `max`. */
function timesIn(parts: readonly Part[], from: bigint, to: bigint, max: number): bigint[] | null {
  const out: bigint[] = [];
  for (const part of parts) {
    const [first, last] = spanOf(part);
    if (last < from || first > to) continue;
    const ts = part.ts;
    const start = lowerBound(ts, part.start, part.end, from);
    const end = upperBound(ts, start, part.end, to);
    if (out.length + end - start > max) return null;
    for (let i = start; i < end; i++) out.push(ts[i] as bigint);
  }
  return out;
}

/** Whether two ascending lists share a value. */
function meet(a: readonly bigint[], b: readonly bigint[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as bigint;
    const y = b[j] as bigint;
    if (x === y) return true;
    if (x < y) i++;
    else j++;
  }
  return false;
}

export interface SummaryScan extends SummaryRequest {
  /** Per scan column: its tag id, or null. */
  tagIds: Array<number | null>;
}

/**
 * Collects the group's parts into `parts`, oldest first, except the members it can answer
 * by summaries, which go to `out`. `tags` are the series' tags.
 */
export function collectSummarised(
  group: SeriesGroup,
  sources: readonly SeriesSource[],
  lo: bigint,
  hi: bigint,
  parts: Part[],
  scan: SummaryScan,
  tags: SeriesTags,
  out: SeriesSummary[],
): void {
  // Per member of the group: the candidate summary of a series, or its parts and their spans.
  const candidates: Array<SourceSummary | null> = [];
  const memberParts: Array<Part[] | null> = [];
  const spans: Array<[bigint, bigint]> = [];
  const spanOwner: number[] = [];
  let any = false;
  for (let j = 0; j < group.count; j++) {
    const source = sources[group.sources[j] as number] as SeriesSource;
    const index = group.indexes[j] as number;
    const summary = source.summaryOf?.(index, lo, hi, scan) ?? null;
    candidates.push(summary);
    if (summary !== null) {
      memberParts.push(null);
      spans.push(summary.span);
      spanOwner.push(j);
      any = true;
      continue;
    }
    const before = parts.length;
    source.collectParts(index, lo, hi, parts);
    memberParts.push(parts.slice(before));
    for (let k = before; k < parts.length; k++) {
      spans.push(spanOf(parts[k] as Part));
      spanOwner.push(j);
    }
  }
  if (!any) return;

  // Member j's span: its summary's, or the least start and greatest end of its parts; null when
  // it has no rows in range. Each other member is then judged once, over the whole stretch.
  const memberSpan = (j: number): [bigint, bigint] | null => {
    let lo: bigint | null = null;
    let hi: bigint | null = null;
    for (let i = 0; i < spans.length; i++) {
      if (spanOwner[i] !== j) continue;
      const span = spans[i] as [bigint, bigint];
      if (lo === null || span[0] < lo) lo = span[0];
      if (hi === null || span[1] > hi) hi = span[1];
    }
    return lo === null || hi === null ? null : [lo, hi];
  };
  // Member j's timestamps in [from, to]: from its parts, or read for the purpose (a candidate's
  // source reads only the blocks that reach the range).
  const timesOf = (j: number, from: bigint, to: bigint): bigint[] | null => {
    let own = memberParts[j];
    if (own === null || own === undefined) {
      own = [];
      (sources[group.sources[j] as number] as SeriesSource).collectParts(group.indexes[j] as number, from, to, own);
    }
    return timesIn(own, from, to, SHARED_TIMES_ROWS_MAX);
  };
  // A candidate sharing a timestamp with another member would merge with it: it is read as rows
  // (under append no row merges, so every candidate stands).
  const summarised: SourceSummary[] = [];
  let rejected = false;
  for (let j = 0; j < candidates.length; j++) {
    const c = candidates[j];
    if (c === null || c === undefined) continue;
    let shared = false;
    for (let other = 0; other < group.count && !shared && !scan.appendMode; other++) {
      const o = other === j ? null : memberSpan(other);
      if (o === null) continue;
      // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.max does not take
      const from = c.span[0] > o[0] ? c.span[0] : o[0];
      // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min does not take
      const to = c.span[1] < o[1] ? c.span[1] : o[1];
      if (from > to) continue;
      const mine = timesOf(j, from, to);
      const theirs = mine === null ? null : timesOf(other, from, to);
      shared = mine === null || theirs === null || meet(mine, theirs);
    }
    if (shared) {
      candidates[j] = null;
      rejected = true;
    } else summarised.push(c);
  }
  if (rejected) {
    // The merge takes parts oldest first: collect them again in member order.
    parts.length = 0;
    for (let j = 0; j < group.count; j++) {
      if (candidates[j] !== null) continue;
      (sources[group.sources[j] as number] as SeriesSource).collectParts(group.indexes[j] as number, lo, hi, parts);
    }
  }
  if (summarised.length === 0) return;
  const tagValues = scan.tagIds.map((id) => {
    if (id === null) return null;
    const at = tags.ids.indexOf(id);
    return at < 0 ? null : (tags.values[at] as string);
  });
  for (const s of summarised) out.push({ rows: s.rows, tags: tagValues, stats: s.stats });
}
