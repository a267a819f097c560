/**
 * Scan: rows of one table from segments + frozen memtables + the active memtable, merged per
 * series and deduplicated, in (series key, time) order, in chunks of at most SCAN_CHUNK_ROWS.
 *
 *   sources (oldest first) → walkSeries (key order) → seriesFilter → collectParts (time range,
 *   block pruning, index pruning by blockFilters; or series summaries, scan-summaries.ts)
 *   → mergeSeries (merge mode) → RowBuffer → ScanChunk
 *
 * The snapshot of sources is taken when iteration starts; segments are pinned until it ends (or
 * the caller stops early), so a compaction finishing meanwhile cannot close their files.
 */
import { DELETE_MARK_COLUMN_ID } from '../shared/codec/write-batch.js';
import { StorageUnavailable } from '../shared/errors.js';
import type { ScanChunk, ScanColumn, ScanRequest, SeriesSummary } from '../shared/scan.js';
import { parseSeriesKey, type SeriesTags, tagMapOf } from '../shared/series-key.js';
import type { Vector } from '../shared/types.js';
import { blocksMayMatch, collectGroupPruned } from './index-pruning.js';
import { MemtableSource } from './memtable/memtable-source.js';
import { ABSENT, type FieldSpec, I64_MAX, I64_MIN, type Part, specKey } from './merge/part.js';
import { type DetachedRows, RowBuffer } from './merge/row-buffer.js';
import { type DeleteMarks, mergeSeries } from './merge/series-merge.js';
import { type SeriesSource, walkSeries } from './merge/series-walk.js';
import { collectSummarised, type SummaryScan, summaryColumnsOf } from './scan-summaries.js';
import { SegmentSource } from './segment/segment-source.js';
import type { ShardState } from './state.js';

/** Rows per scan chunk. */
export const SCAN_CHUNK_ROWS = 4096;

/** Summaries a scan gathers before it yields them (a point where its consumer may pause, too). */
const SUMMARIES_PER_CHUNK = 256;

/** Series skipped (filtered out, or without rows in range) between two `pauseWanted` checks. */
const SKIPS_PER_PAUSE_CHECK = 64;

/** What a scan yields to offer its consumer a pause when it has no rows to give. */
const NO_ROWS: ScanChunk = { rowCount: 0, vectors: [] };

/** How each requested column is answered: a field spec index, a tag id, or the time index. */
type ColumnPlan =
  | { role: 'field'; spec: number; absentValue: ScanColumn['absentValue'] }
  | { role: 'tag'; id: number }
  | { role: 'time' };

function planColumns(request: ScanRequest): {
  plans: ColumnPlan[];
  specs: FieldSpec[];
  specOf: (c: ScanColumn) => number;
} {
  const specs: FieldSpec[] = [];
  const specIndex = new Map<number, number>();
  const plans = request.columns.map((c): ColumnPlan => {
    if (c.role === 'time') return { role: 'time' };
    if (c.role === 'tag') return { role: 'tag', id: c.id };
    const key = specKey(c.id, c.kind);
    let spec = specIndex.get(key);
    if (spec === undefined) {
      spec = specs.length;
      specs.push({ id: c.id, kind: c.kind });
      specIndex.set(key, spec);
    }
    return { role: 'field', spec, absentValue: c.absentValue };
  });
  return { plans, specs, specOf: (c) => specIndex.get(specKey(c.id, c.kind)) ?? -1 };
}

function tagColumn(rows: DetachedRows, id: number, tagsOf: (key: string) => SeriesTags): Array<string | null> {
  const out = new Array<string | null>(rows.length);
  for (let k = 0; k < rows.markRows.length; k++) {
    const from = rows.markRows[k] as number;
    const to = k + 1 < rows.markRows.length ? (rows.markRows[k + 1] as number) : rows.length;
    const tags = tagsOf(rows.markKeys[k] as string);
    const at = tags.ids.indexOf(id);
    const value = at < 0 ? null : (tags.values[at] as string);
    out.fill(value, from, to);
  }
  return out;
}

/** Gives absent cells the column's default, or makes them NULL when it has none. */
function fillAbsent(values: Vector['values'], valid: Uint8Array, absentValue: ScanColumn['absentValue']): void {
  for (let i = 0; i < valid.length; i++) {
    if (valid[i] !== ABSENT) continue;
    if (absentValue === undefined) {
      valid[i] = 0;
    } else {
      (values as unknown as Array<number | bigint | string>)[i] = absentValue;
      valid[i] = 1;
    }
  }
}

function toChunk(
  rows: DetachedRows,
  plans: readonly ColumnPlan[],
  specs: readonly FieldSpec[],
  tagsOf: (key: string) => SeriesTags,
): ScanChunk {
  const n = rows.length;
  const vectors = plans.map((p): Vector => {
    if (p.role === 'time') return { kind: 'i64', values: rows.ts.subarray(0, n) };
    if (p.role === 'tag') return { kind: 'str', values: tagColumn(rows, p.id, tagsOf) };
    const kind = (specs[p.spec] as FieldSpec).kind;
    const all = rows.values[p.spec] as Vector['values'];
    const values = Array.isArray(all) ? all.slice(0, n) : (all as Float64Array).subarray(0, n);
    const valid = (rows.valid[p.spec] as Uint8Array).subarray(0, n);
    if (valid.indexOf(ABSENT) >= 0) fillAbsent(values, valid, p.absentValue);
    return { kind, values, valid: valid.indexOf(0) < 0 ? undefined : valid };
  });
  return { rowCount: n, vectors, seriesStarts: rows.markRows };
}

export function* scanTable(state: ShardState, request: ScanRequest): Generator<ScanChunk, void, void> {
  const tableId = request.tableId;
  if (state.dropped.has(tableId)) return;
  const broken = state.brokenTables.get(tableId);
  if (broken !== undefined) throw new StorageUnavailable(`table ${tableId} is unreadable: ${broken}`);
  const lo = request.timeMin ?? I64_MIN;
  const hi = request.timeMax === undefined ? I64_MAX : request.timeMax - 1n;
  if (lo > hi) return;

  const { plans, specs, specOf } = planColumns(request);
  const files = (state.segments.get(tableId) ?? []).slice();
  const tables = [...state.frozen, state.active].flatMap((m) => m.tables.get(tableId) ?? []);
  // Tombstones are read (and dropped by the merge) only for tables that have any.
  const isMark = (c: FieldSpec) => c.id === DELETE_MARK_COLUMN_ID && c.kind === 'bool';
  let marks: DeleteMarks | undefined;
  if (files.some((f) => f.columns.some(isMark)) || tables.some((t) => t.slots.some(isMark))) {
    marks = { column: specs.length, keep: false };
    specs.push({ id: DELETE_MARK_COLUMN_ID, kind: 'bool' });
  }
  for (const f of files) f.pin();
  const segmentSources = files.map((f) => new SegmentSource(f, specs));
  const memtableSources: MemtableSource[] = [];
  /** Series parts answered from statistics. */
  let summarised = 0;
  let visited = 0;
  try {
    const sources: SeriesSource[] = segmentSources.slice();
    let pruning = false;
    if (request.blockFilters && request.blockFilters.length > 0) {
      const filters = request.blockFilters;
      const onCorrupt = (message: string): void => {
        state.counters.indexSectionsCorrupt++;
        state.log.warn(`${message}; scans read every block of this segment`);
      };
      for (const source of segmentSources) {
        source.mayMatch = blocksMayMatch(source.file, filters, onCorrupt);
        if (source.mayMatch !== null) pruning = true;
      }
    }
    for (const table of tables) {
      if (table.mayHoldTimes(lo, hi)) memtableSources.push(new MemtableSource(table, specs));
    }
    sources.push(...memtableSources);
    const mode = state.mergeModeOf(tableId);
    const appendMode = mode === 'append';
    let lastKey = '';
    let lastTags: SeriesTags = { ids: [], values: [] };
    const tagsOf = (key: string): SeriesTags => {
      if (key !== lastKey) {
        lastKey = key;
        lastTags = parseSeriesKey(key);
      }
      return lastTags;
    };

    const buf = new RowBuffer(specs, SCAN_CHUNK_ROWS, true);
    const parts: Part[] = [];
    const filter = request.seriesFilter;
    const pauseWanted = request.pauseWanted;
    const summaryColumns =
      request.summaries === true && marks === undefined && !pruning ? summaryColumnsOf(request.columns, specOf) : null;
    const summaryScan: SummaryScan | null =
      summaryColumns === null
        ? null
        : {
            ...summaryColumns,
            appendMode,
            onCorrupt: (message) => {
              state.counters.indexSectionsCorrupt++;
              state.log.warn(`${message}; scans read the rows`);
            },
          };
    let summaries: SeriesSummary[] = [];
    let skipped = 0;
    const matchers = request.seriesMatchers;
    const only = matchers && matchers.length > 0 ? sources.map((s) => s.candidates?.(matchers) ?? null) : undefined;
    for (const group of walkSeries(sources, only)) {
      visited++;
      parts.length = 0;
      if (!filter || filter(tagMapOf(tagsOf(group.key)))) {
        if (summaryScan !== null) {
          const before = summaries.length;
          collectSummarised(group, sources, lo, hi, parts, summaryScan, tagsOf(group.key), summaries);
          summarised += summaries.length - before;
          if (summaries.length >= SUMMARIES_PER_CHUNK) {
            yield { rowCount: 0, vectors: [], summaries };
            summaries = [];
          }
        } else if (pruning) {
          collectGroupPruned(group, sources, lo, hi, appendMode, parts);
        } else {
          for (let j = 0; j < group.count; j++) {
            const source = sources[group.sources[j] as number] as SeriesSource;
            source.collectParts(group.indexes[j] as number, lo, hi, parts);
          }
        }
      }
      if (parts.length === 0) {
        // A scan that skips most series could otherwise run for long without a chunk to pause at.
        if (pauseWanted && ++skipped % SKIPS_PER_PAUSE_CHECK === 0 && pauseWanted()) yield NO_ROWS;
        continue;
      }
      buf.markSeries(group.key);
      for (const _ of mergeSeries(parts, mode, buf, marks)) yield toChunk(buf.detach(), plans, specs, tagsOf);
    }
    if (buf.length > 0) yield toChunk(buf.detach(), plans, specs, tagsOf);
    if (summaries.length > 0) yield { rowCount: 0, vectors: [], summaries };
  } finally {
    for (const source of segmentSources) {
      state.counters.indexBlocksSkipped += source.blocksSkipped;
      state.counters.segmentBlocksRead += source.blocksRead;
    }
    for (const source of memtableSources) state.counters.memtableRowsRead += source.rowsRead;
    state.counters.seriesSummarised += summarised;
    state.counters.seriesVisited += visited;
    for (const f of files) f.unpin();
  }
}
