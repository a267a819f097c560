/**
 * Series summaries for scans that ask for them (`ScanRequest.summaries`): a series' rows in a
 * segment are answered by the segment's statistics (segment/series-stats.ts) instead of its
 * blocks, when that cannot change the answer:
 * - the rows lie wholly inside the scan's time range (no row is cut off);
 * - the statistics stand for them (no NaN value, no row reading a column's default);
 * - no other part of the series (memtables, other segments) has a row in their time span, so
 *   nothing would merge with them; under `append` rows never merge, so any span will do;
 *   a series' segments that overlap others are read as rows, the others still summarised;
 * - the table has no tombstones (the scan checks that before asking).
 */
import type { ScanColumn, SeriesSummary } from '../shared/scan.js';
import type { SeriesTags } from '../shared/series-key.js';
import type { Part } from './merge/part.js';
import type { SeriesGroup, SeriesSource } from './merge/series-walk.js';
import { SegmentSource } from './segment/segment-source.js';

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

/** Whether `span` shares a timestamp with any of `others` but the one at `self`. */
function overlapsAny(span: [bigint, bigint], others: ReadonlyArray<[bigint, bigint]>, self: number): boolean {
  for (let i = 0; i < others.length; i++) {
    if (i === self) continue;
    const o = others[i] as [bigint, bigint];
    if (span[0] <= o[1] && o[0] <= span[1]) return true;
  }
  return false;
}

export interface SummaryScan {
  /** Per scan column: its tag id, or null. */
  tagIds: Array<number | null>;
  /** Per scan column: its field spec, or -1 (see `SegmentSource.statsOf`). */
  specs: number[];
  appendMode: boolean;
  onCorrupt: (message: string) => void;
}

/**
 * Collects the group's parts into `parts`, oldest first, except the segment series it can answer
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
  // Per member of the group: the candidate summary of a segment series, or its parts' spans.
  const candidates: Array<{ stats: Float64Array; rows: number; span: [bigint, bigint] } | null> = [];
  const spans: Array<[bigint, bigint]> = [];
  const spanOwner: number[] = [];
  let any = false;
  for (let j = 0; j < group.count; j++) {
    const source = sources[group.sources[j] as number] as SeriesSource;
    const index = group.indexes[j] as number;
    candidates.push(null);
    if (source instanceof SegmentSource && (source.file.deduplicated || scan.appendMode)) {
      const stats = source.statsOf(index, lo, hi, scan.specs, scan.onCorrupt);
      const s = source.file.series[index];
      if (stats !== null && s !== undefined) {
        candidates[j] = { stats, rows: s.rowCount, span: [s.minTs, s.maxTs] };
        spans.push([s.minTs, s.maxTs]);
        spanOwner.push(j);
        any = true;
        continue;
      }
    }
    const before = parts.length;
    source.collectParts(index, lo, hi, parts);
    for (let k = before; k < parts.length; k++) {
      spans.push(spanOf(parts[k] as Part));
      spanOwner.push(j);
    }
  }
  if (!any) return;
  // A candidate whose span meets another member's rows is read as rows (under append no row
  // merges, so every candidate stands).
  const summarised: Array<{ stats: Float64Array; rows: number }> = [];
  let rejected = false;
  for (let j = 0; j < candidates.length; j++) {
    const c = candidates[j];
    if (c === null || c === undefined) continue;
    const self = spanOwner.indexOf(j);
    if (!scan.appendMode && overlapsAny(c.span, spans, self)) {
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
