/**
 * Native histogram samples of resolved series → one `TableInsert` per metric table, in series
 * form like the float samples (series-inserts.ts). A histogram sample is a row of the metric's
 * table whose `greptime_value` is NULL and whose `greptime_histogram` (Binary) holds the
 * histogram in its stored form (query/promql/histogram/stored-histogram.ts), so float and
 * histogram samples of one series share its table, key and time index (docs/metrics-storage.md).
 *
 * This is the general path on purpose: histograms are rarer than float samples, and keeping
 * them out of sample-parts.ts leaves the float fast path as it is.
 */
import { InvalidArgument } from '../errors.js';
import type { InsertColumn, TableInsert } from '../insert.js';
import {
  putMillis,
  type ResolvedSeries,
  type TableLookup,
  TIME_COLUMN,
  tagNamesOf,
  tuplesOf,
  valueColumnOf,
} from './series-inserts.js';

/** The Binary field holding a row's native histogram. */
export const HISTOGRAM_COLUMN = 'greptime_histogram';

/** Histogram samples as runs: run i is `series[i]` with `[start[i], start[i] + count[i])`. */
export interface HistogramRuns {
  series: readonly ResolvedSeries[];
  start: Uint32Array;
  count: Uint32Array;
  /** ms since the epoch (exact integers). */
  timestamps: Float64Array;
  /** Stored forms, latin1 strings. */
  values: readonly string[];
}

/** The histogram samples of all runs. */
export function histogramSamplesOf(runs: HistogramRuns): number {
  let n = 0;
  for (let i = 0; i < runs.series.length; i++) n += runs.count[i] as number;
  return n;
}

interface TableGroup {
  db: string;
  table: string;
  runs: number[];
  series: ResolvedSeries[];
  local: Map<ResolvedSeries, number>;
  rows: number;
}

/** One insert per table, tables in first-seen order. */
export function histogramInserts(runs: HistogramRuns, lookup: TableLookup): TableInsert[] {
  const tables = new Map<string, TableGroup>();
  for (let i = 0; i < runs.series.length; i++) {
    const s = runs.series[i] as ResolvedSeries;
    let group = tables.get(s.tableKey);
    if (group === undefined) {
      group = { db: s.db, table: s.table, runs: [], series: [], local: new Map(), rows: 0 };
      tables.set(s.tableKey, group);
    }
    if (!group.local.has(s)) {
      group.local.set(s, group.series.length);
      group.series.push(s);
    }
    group.runs.push(i);
    group.rows += runs.count[i] as number;
  }
  return [...tables.values()].map((g) => buildInsert(g, runs, lookup(g.db, g.table)));
}

function buildInsert(g: TableGroup, runs: HistogramRuns, existing: ReturnType<TableLookup>): TableInsert {
  const n = g.rows;
  const timeName = existing?.timeIndex ?? TIME_COLUMN;
  const valueName = valueColumnOf(existing);
  const tagNames = tagNamesOf(g.series);
  for (const name of tagNames) {
    if (name === timeName || name === valueName || name === HISTOGRAM_COLUMN) {
      throw new InvalidArgument(`Label name ${name} of metric ${g.table} collides with a column of its table`);
    }
  }
  const timestamps = new BigInt64Array(n);
  const words = new Int32Array(timestamps.buffer);
  const histograms = new Array<string | null>(n);
  const rowSeries = new Uint32Array(n);
  let row = 0;
  for (const i of g.runs) {
    const from = runs.start[i] as number;
    const count = runs.count[i] as number;
    putMillis(words, row, runs.timestamps, from, count);
    for (let k = 0; k < count; k++) histograms[row + k] = runs.values[from + k] as string;
    rowSeries.fill(g.local.get(runs.series[i] as ResolvedSeries) as number, row, row + count);
    row += count;
  }
  const shards = new Uint16Array(g.series.length);
  for (let k = 0; k < g.series.length; k++) shards[k] = (g.series[k] as ResolvedSeries).shard;
  const columns: InsertColumn[] = [
    {
      name: timeName,
      semantic: 'TIMESTAMP',
      type: 'TimestampMillisecond',
      vector: { kind: 'i64', values: timestamps },
    },
    // Present, all NULL: a table made by histograms has the layout float samples expect.
    {
      name: valueName,
      semantic: 'FIELD',
      type: 'Float64',
      vector: { kind: 'f64', values: new Float64Array(n), valid: new Uint8Array(n) },
    },
    { name: HISTOGRAM_COLUMN, semantic: 'FIELD', type: 'Binary', vector: { kind: 'str', values: histograms } },
    ...tagNames.map(
      (name): InsertColumn => ({ name, semantic: 'TAG', type: 'String', vector: { kind: 'str', values: [] } }),
    ),
  ];
  return {
    db: g.db,
    table: g.table,
    rowCount: n,
    columns,
    rowSeries,
    series: { tuples: tuplesOf(g.series, tagNames), shards, keyHolders: g.series },
  };
}
