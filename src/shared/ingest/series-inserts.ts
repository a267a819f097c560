/**
 * The metric-table write path shared by the protocols whose points are single values of named
 * series (remote write, OpenTSDB): each protocol resolves a point's series once, through its own
 * cache, into a `ResolvedSeries` (database, table, sorted tags, shard); this module turns runs
 * of points into one `TableInsert` per table in series form (`TableInsert.series`), so the
 * ingest pipeline neither rebuilds per-row tag vectors nor rehashes known series.
 *
 * Table layout (reference ingest §2.3, §6): `greptime_timestamp` TimestampMillisecond time
 * index, `greptime_value` Float64 field, one String tag per label (an existing table's own time
 * index and value column names are reused); native histogram samples add a Binary
 * `greptime_histogram` field beside a NULL value (`histogramInserts`).
 */
import { InvalidArgument } from '../errors.js';
import type { InsertColumn, StorageKeyHolder, TableInsert } from '../insert.js';
import { intern } from '../intern.js';
import { shardOfSeries, tableHash } from '../partition.js';
import type { EncodedKey } from '../series-key-blob.js';
import type { TableSchema } from '../types.js';
import type { TableBindingBase } from './direct-parts.js';

export const TIME_COLUMN = 'greptime_timestamp';
export const VALUE_COLUMN = 'greptime_value';

/** How existing tables are looked up, so their own time-index and value column names are reused. */
export type TableLookup = (db: string, table: string) => TableSchema | undefined;

/** A series as a protocol's cache resolved it. Immutable, but for the pipeline's storage key. */
export interface ResolvedSeries extends StorageKeyHolder {
  readonly db: string;
  readonly table: string;
  /** `db` and `table` joined, interned: one string object per table, so maps hit by pointer. */
  readonly tableKey: string;
  /** Tag names sorted, and their values (never empty). */
  readonly tagNames: readonly string[];
  readonly tagValues: readonly string[];
  /** `tagNames` joined, interned likewise: series with the same tag names share it. */
  readonly shapeKey: string;
  /** The shard that owns the series. */
  readonly shard: number;
  /** Its index among its table's series in the inserts being built, valid while `stamp` is theirs. */
  stamp?: number | undefined;
  stampIndex?: number | undefined;
  /**
   * How the direct path writes the series, for one catalog generation (sample-parts.ts): its
   * table and encoded key, on the series itself rather than in an object of their own (one
   * object less to read per series of a request).
   */
  boundTable?: TableBindingBase | undefined;
  boundKey?: EncodedKey | undefined;
}

let lastStamp = 0;

/** A new stamp for numbering series (and tables) in one synchronous pass over a request. */
export function newStamp(): number {
  return ++lastStamp;
}

/** The series of `table` in `db` with non-empty `tags` (any order); for `shards` shards. */
export function resolveSeries(
  db: string,
  table: string,
  tags: Array<[string, string]>,
  shards: number,
): ResolvedSeries {
  tags.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const tagNames = tags.map((t) => intern(t[0]));
  const tagValues = tags.map((t) => t[1]);
  return {
    db,
    table,
    tableKey: intern(`${db}\u0000${table}`),
    tagNames,
    tagValues,
    shapeKey: intern(tagNames.join('\u0000')),
    shard: shardOfSeries(tableHash(db, table), tagNames, tagValues, shards),
    // Present from the start, so every series object keeps one shape (fast property access).
    storageKey: undefined,
    stamp: undefined,
    stampIndex: undefined,
    boundTable: undefined,
    boundKey: undefined,
  };
}

/**
 * Points as runs: run i is series `series[i]` with the samples `[start[i], start[i] + count[i])`
 * of `timestamps` (ms since the epoch, exact integers) and `values` (bits kept: NaN payloads too).
 */
export interface SeriesRuns {
  series: readonly ResolvedSeries[];
  start: Uint32Array;
  count: Uint32Array;
  timestamps: Float64Array;
  values: Float64Array;
}

/** The samples of all runs (float or histogram). */
export function samplesOf(runs: Pick<SeriesRuns, 'series' | 'count'>): number {
  let n = 0;
  for (let i = 0; i < runs.series.length; i++) n += runs.count[i] as number;
  return n;
}

/** Points of one sample each as runs: run i is `series[i]` with sample i (`timestamps`/`values` hold at least as many). */
export function pointRuns(
  series: readonly ResolvedSeries[],
  timestamps: Float64Array,
  values: Float64Array,
): SeriesRuns {
  const n = series.length;
  const start = new Uint32Array(n);
  for (let k = 0; k < n; k++) start[k] = k;
  return {
    series,
    start,
    count: new Uint32Array(n).fill(1),
    timestamps: timestamps.subarray(0, n),
    values: values.subarray(0, n),
  };
}

/** One table's insert and the runs it holds (for attributing a refused write to its points). */
export interface TableRuns {
  insert: TableInsert;
  runs: number[];
}

interface TableBuilder {
  key: string;
  db: string;
  table: string;
  /** Series of the table in this request; `stampIndex` of each is its position here. */
  series: ResolvedSeries[];
  runs: number[];
  rowCount: number;
}

/**
 * Writes `count` millisecond timestamps from `ms[from]` into rows `row...` of a BigInt64Array seen
 * as 32-bit words (`words`, little-endian): exact integers, and no BigInt per sample.
 */
export function putMillis(words: Int32Array, row: number, ms: Float64Array, from: number, count: number): void {
  for (let k = 0; k < count; k++) {
    const t = ms[from + k] as number;
    const hi = Math.floor(t / 4294967296);
    words[2 * (row + k)] = (t - hi * 4294967296) | 0;
    words[2 * (row + k) + 1] = hi | 0;
  }
}

/**
 * Runs of native histogram samples: as `SeriesRuns`, with each sample in its stored form (latin1
 * strings, query/promql/histogram/stored-histogram.ts) instead of a float.
 */
export interface HistogramRuns extends Omit<SeriesRuns, 'values'> {
  values: readonly string[];
}

/** The Binary field holding a row's native histogram (docs/metrics-storage.md). */
export const HISTOGRAM_COLUMN = 'greptime_histogram';

/** Groups runs by table, in first-seen order, into inserts in series form. */
export function seriesInserts(points: SeriesRuns, lookup: TableLookup): TableRuns[] {
  return tablesOf(points).map((t) => ({ insert: buildInsert(t, points, lookup(t.db, t.table), null), runs: t.runs }));
}

/**
 * Native histogram samples as one insert per table, like float samples: a histogram sample is a
 * row of the metric's table whose value column is NULL and whose `greptime_histogram` holds it,
 * so float and histogram samples of a series share its table, key and time index. Histograms take
 * this general path on purpose: they are rarer than floats, and sample-parts.ts stays as it is.
 */
export function histogramInserts(runs: HistogramRuns, lookup: TableLookup): TableInsert[] {
  return tablesOf(runs).map((t) => buildInsert(t, runs, lookup(t.db, t.table), runs.values));
}

/** The runs' tables in first-seen order, each with its series and runs. */
function tablesOf(points: Omit<SeriesRuns, 'values'>): TableBuilder[] {
  // Series are numbered by a stamp on them rather than a map: this runs in one synchronous call.
  const stamp = newStamp();
  const tables = new Map<string, TableBuilder>();
  let last: TableBuilder | undefined;
  for (let i = 0; i < points.series.length; i++) {
    const series = points.series[i] as ResolvedSeries;
    let table = last;
    if (table === undefined || table.key !== series.tableKey) {
      table = tables.get(series.tableKey);
      if (!table) {
        const { tableKey: key, db, table: name } = series;
        table = { key, db, table: name, series: [], runs: [], rowCount: 0 };
        tables.set(key, table);
      }
      last = table;
    }
    if (series.stamp !== stamp) {
      series.stamp = stamp;
      series.stampIndex = table.series.length;
      table.series.push(series);
    }
    table.runs.push(i);
    table.rowCount += points.count[i] as number;
  }
  return [...tables.values()];
}

/** The value column of an existing table: `greptime_value`, else its only Float64 field. */
export function valueColumnOf(existing: TableSchema | undefined): string {
  if (!existing || existing.columns.some((c) => c.name === VALUE_COLUMN)) return VALUE_COLUMN;
  const fields = existing.columns.filter((c) => c.semantic === 'FIELD');
  if (fields.length === 1 && fields[0]?.type === 'Float64') return fields[0].name;
  return VALUE_COLUMN;
}

/** Sorted union of the tag names of the table's series, computed once per distinct shape. */
export function tagNamesOf(series: readonly ResolvedSeries[]): string[] {
  const shapes = new Map<string, readonly string[]>();
  let last = '';
  for (const s of series) {
    // Shape keys are interned: runs of one shape compare by pointer.
    if (s.shapeKey === last) continue;
    last = s.shapeKey;
    if (!shapes.has(last)) shapes.set(last, s.tagNames);
  }
  if (shapes.size === 1) return [...(shapes.values().next().value as readonly string[])];
  const names = new Set<string>();
  for (const shape of shapes.values()) for (const n of shape) names.add(n);
  return [...names].sort();
}

/** Each series' tag values in `names` order (null = absent); shared arrays where shapes match. */
export function tuplesOf(series: readonly ResolvedSeries[], names: readonly string[]): Array<Array<string | null>> {
  const full = intern(names.join('\u0000'));
  const positions = new Map<string, number[]>();
  return series.map((s) => {
    if (s.shapeKey === full) return s.tagValues as string[];
    let at = positions.get(s.shapeKey);
    if (!at) {
      at = s.tagNames.map((n) => names.indexOf(n));
      positions.set(s.shapeKey, at);
    }
    const tuple = new Array<string | null>(names.length).fill(null);
    for (let j = 0; j < at.length; j++) tuple[at[j] as number] = s.tagValues[j] as string;
    return tuple;
  });
}

/**
 * One table's insert. `histograms` null: the runs' float values fill the value column; else the
 * runs' stored histograms fill `greptime_histogram` and the value column is present, all NULL (a
 * table made by histograms has the layout float samples expect).
 */
function buildInsert(
  t: TableBuilder,
  points: Omit<SeriesRuns, 'values'> & { values: Float64Array | readonly string[] },
  existing: TableSchema | undefined,
  histograms: readonly string[] | null,
): TableInsert {
  const n = t.rowCount;
  const timeName = existing?.timeIndex ?? TIME_COLUMN;
  const valueName = valueColumnOf(existing);
  const tagNames = tagNamesOf(t.series);
  for (const name of tagNames) {
    if (name === timeName || name === valueName) {
      throw new InvalidArgument(
        `Label name ${name} of metric ${t.table} collides with the ${name === timeName ? 'time index' : 'value'} column`,
      );
    }
    if (histograms !== null && name === HISTOGRAM_COLUMN) {
      throw new InvalidArgument(`Label name ${name} of metric ${t.table} collides with a column of its table`);
    }
  }

  // Timestamps go into the BigInt64Array through its 32-bit words: no BigInt per sample.
  const timestamps = new BigInt64Array(n);
  const words = new Int32Array(timestamps.buffer);
  const values = new Float64Array(n);
  const stored = histograms === null ? null : new Array<string | null>(n);
  const floats = histograms === null ? (points.values as Float64Array) : null;
  const rowSeries = new Uint32Array(n);
  let row = 0;
  for (const i of t.runs) {
    const from = points.start[i] as number;
    const count = points.count[i] as number;
    putMillis(words, row, points.timestamps, from, count);
    if (floats !== null) {
      if (count === 1) values[row] = floats[from] as number;
      else values.set(floats.subarray(from, from + count), row);
    } else {
      for (let k = 0; k < count; k++)
        (stored as Array<string | null>)[row + k] = (histograms as string[])[from + k] as string;
    }
    const local = (points.series[i] as ResolvedSeries).stampIndex as number;
    if (count === 1) rowSeries[row] = local;
    else rowSeries.fill(local, row, row + count);
    row += count;
  }
  const shards = new Uint16Array(t.series.length);
  for (let k = 0; k < t.series.length; k++) shards[k] = (t.series[k] as ResolvedSeries).shard;
  const columns: InsertColumn[] = [
    {
      name: timeName,
      semantic: 'TIMESTAMP',
      type: 'TimestampMillisecond',
      vector: { kind: 'i64', values: timestamps },
    },
    stored === null
      ? { name: valueName, semantic: 'FIELD', type: 'Float64', vector: { kind: 'f64', values } }
      : {
          name: valueName,
          semantic: 'FIELD',
          type: 'Float64',
          vector: { kind: 'f64', values, valid: new Uint8Array(n) },
        },
    ...(stored === null
      ? []
      : [
          {
            name: HISTOGRAM_COLUMN,
            semantic: 'FIELD',
            type: 'Binary',
            vector: { kind: 'str', values: stored },
          } as InsertColumn,
        ]),
    ...tagNames.map(
      (name): InsertColumn => ({ name, semantic: 'TAG', type: 'String', vector: { kind: 'str', values: [] } }),
    ),
  ];
  return {
    db: t.db,
    table: t.table,
    rowCount: n,
    columns,
    rowSeries,
    series: { tuples: tuplesOf(t.series, tagNames), shards, keyHolders: t.series as ResolvedSeries[] },
  };
}
